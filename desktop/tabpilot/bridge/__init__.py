"""The extension-facing adapter: aiohttp on loopback, the extension's WebSocket, the local HTTP API."""
