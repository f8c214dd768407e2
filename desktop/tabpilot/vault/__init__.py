"""Where the bridge token and secrets live: the OS keyring, or where none is reachable, private files."""
