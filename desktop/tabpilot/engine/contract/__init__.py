"""The command definition machinery: a command's one definition (commands, args, params, results, limits), the
`{{placeholder}}` syntax of its values, the bridge operations it may send, the workflow step kinds derived from
it and the help mode.

May import the engine's base (errors); a handler's signature names the core's context (type only), and the step
kinds read the catalog at first use: the exceptions pyproject's [tool.importlinter] lists with their reasons."""
