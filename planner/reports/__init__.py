"""Results for readers: plots, a self-contained report, the workload schema and scenario diffs.

``plots`` draws the library's models with matplotlib (the ``plot`` extra), imported only when
a plot is drawn; ``document`` writes one HTML or Markdown report; ``schema`` gives the JSON
Schema of the workload file; ``diff`` prices two scenarios side by side. Nothing here computes
a price of its own: every figure comes from the pricing engine, the recommender or a profile.
"""

from __future__ import annotations
