"""The OS keyring adapter: the bridge token and named secrets. Never files."""
