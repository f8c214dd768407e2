"""Files made from a page: screenshots (and their drawing), PDFs, generated scripts and tests, visual diffs,
written under the artifacts folder.

A feature: may import the core, the contract and safety; another feature only where pyproject's
[tool.importlinter] lists it with its reason."""
