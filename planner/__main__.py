"""``python -m planner``: the same entry point as the ``planner`` command."""

from planner.cli import main

main()
