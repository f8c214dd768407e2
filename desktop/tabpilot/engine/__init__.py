"""The product's brain: pure asyncio, no Qt, no sockets, no keyring."""
