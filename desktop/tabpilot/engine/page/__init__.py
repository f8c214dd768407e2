"""Interact with and observe a page: actions, reading, snapshots, checks, dialogs, the hand-off to the person,
tabs and the per-tab configuration.

A feature: may import the core, the contract and safety; not another feature."""
