"""The shell side: the `tabpilot` entry points (entry), per-mode subcommands (shell, read from cli_spec.json),
the light client of a running app (client, local_call) and the secret and pairing stores' commands (stores).

A plain call stays light: it may import the package root's shared modules (quickjson, paths, storage's state
file) but never the engine, Qt or the network libraries; entry points import what they need inside themselves.
"""

from tabpilot.cli.entry import main as main
