"""Running a measurement: ``options`` (what is asked and the plan of cells and probes), ``safety``
(refusals, signals, atomic output), ``cells`` (``CellRunner``: one cell over the worker pool) and
``measurement`` (``Measurement``: one run from preflight to cleanup)."""
