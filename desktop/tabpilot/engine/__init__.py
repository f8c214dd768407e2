"""The product's brain: pure asyncio, no Qt, no sockets, no keyring, no Playwright.

At this root: the core (core: resolve, gate, approve, run as a job; context, chain) and its base (jobs,
events, ports, errors, per_engine), which import no feature; the catalog, which gathers every feature's
commands and which only the composition root (and the generators) import. Features live in the subpackages.
"""
