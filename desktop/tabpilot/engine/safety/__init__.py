"""The guards: the pilot switch and its capabilities, the approval policy, tab ownership, the tabs runs hold,
redaction and scrubbing of what is kept, prompt-injection scoring, the regex guard and the folders files may cross.

Below the core (which gates, approves and picks tabs with them) and the features (which use them); may
import the engine's base (errors, ports) and the contract, never the core or a feature (the approval classes
read the catalog at first use: listed in pyproject's [tool.importlinter])."""
