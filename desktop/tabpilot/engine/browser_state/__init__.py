"""What a browser carries besides its pages: saved states (cookies, storage), device and screen emulation,
routes (mocking, blocking, headers).

A feature: may import the core, the contract and safety; another feature only where pyproject's
[tool.importlinter] lists it with its reason."""
