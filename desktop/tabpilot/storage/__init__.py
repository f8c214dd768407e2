"""File adapters: settings, the state file, workflows on disk."""
