"""The managed browser: Chromium launched through Playwright with the extension loaded and paired."""
