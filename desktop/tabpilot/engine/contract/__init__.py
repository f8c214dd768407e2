"""The command definition machinery: a command's one definition (commands, args, params, results, limits),
the bridge operations it may send, the workflow step kinds derived from it and the help mode.

May import the engine's base (errors) only; the step kinds and approval classes are read from the catalog at
first use (the exceptions listed in pyproject's [tool.importlinter])."""
