"""What a page emits, kept in bounded buffers: console, errors, network, WebSockets (capture, telemetry),
HAR export, accessibility audits and performance figures.

A feature: may import the core, the contract and safety; another feature only where pyproject's
[tool.importlinter] lists it with its reason."""
