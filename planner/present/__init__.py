"""Results for readers, drawn from what the library's results hold: text, Markdown, CSV and JSON
(``text``), plots (``plots``, matplotlib from the ``plot`` extra, imported only when a plot is
drawn), one self-contained HTML or Markdown report (``report``) and two scenarios side by side
(``scenarios``). Nothing here prices, simulates or loads a table of its own.
"""
