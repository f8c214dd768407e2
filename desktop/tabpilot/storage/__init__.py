"""File adapters: settings, the state file, workflows on disk, the records of their runs."""
