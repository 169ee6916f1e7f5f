"""Decisions over a workload: which provider and class (``recommendation``), with inputs given as
ranges (``uncertainty``), over a grid of inputs (``sweep``), two scenarios side by side
(``scenarios``) and how to move (``migration``). Each is a pipeline of stages over records whose
result carries everything the presenters show."""
