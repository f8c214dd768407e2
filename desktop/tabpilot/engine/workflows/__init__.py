"""Workflows: scrape and extraction (and its spec), workflow documents and their commands, the runner, runs
(their records, observe runs, stop_run), the recorder of what agents did and the code generators (Python,
Playwright tests). Schedules and the recorder by demonstration go here too.

A feature: may import the core, the contract and safety; another feature only where pyproject's
[tool.importlinter] lists it with its reason."""
