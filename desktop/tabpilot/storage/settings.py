"""The user's settings (config.json): what the human chose in the tray. Never holds secrets, and never
the AI Web Pilot switch or the capability toggles (those live in the keyring: no file may turn them on)."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from tabpilot.engine.core import DEFAULT_REDACT
from tabpilot.safe_files import read_regular_text
from tabpilot.storage.atomic import remove_stale_temp_files, write_atomic

log = logging.getLogger("tabpilot.settings")
MAX_SETTINGS_BYTES = 1024 * 1024
"""Settings are a few lines: only a bound, so that a FIFO or device in its place is never read without end."""

DEFAULT_PORT = 47615
MAX_APPROVAL_WAIT_MS = 60_000
DIALOG_POLICIES = ("leave", "dismiss")
"""What happens to a page's dialog (alert, confirm, prompt, beforeunload) nobody answers: it is left for
the agent (interact handle_dialog), or dismissed after `dialog_dismiss_after_s`."""


@dataclass
class Settings:
    port: int = DEFAULT_PORT
    browser_executable: str = ""
    managed_headless: bool = False
    open_managed_at_start: bool = True
    step_delay_ms: int = 500
    approval_wait_ms: int = 20_000
    redact_selectors: list[str] = field(default_factory=lambda: list(DEFAULT_REDACT))
    """The built-in selectors and any the person added: the built-in ones always apply (see bound)."""
    upload_folders: list[str] = field(default_factory=list)
    """Folders besides the home's uploads/ that `interact upload` may take files from (absolute paths)."""
    dialog_policy: str = "leave"
    dialog_dismiss_after_s: int = 10

    def dialog_state(self) -> dict[str, int | None]:
        """The dialog policy as the extension applies it (sent with the app's state)."""
        return {"dismiss_after_ms": self.dialog_dismiss_after_s * 1000 if self.dialog_policy == "dismiss" else None}

    @classmethod
    def load(cls, path: Path) -> Settings:
        remove_stale_temp_files(path.parent)  # read once at start: the time to tidy up after a crash
        try:
            raw = json.loads(read_regular_text(path, MAX_SETTINGS_BYTES))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as exc:
            log.warning("settings file %s is unreadable (%s); using defaults", path, exc)
            return cls()
        if not isinstance(raw, dict):
            return cls()
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        defaults = cls()
        for name, value in raw.items():
            expected = type(getattr(defaults, name)) if name in known else None
            # bool is an int in Python: `"port": true` is not a port.
            if (
                expected is not None
                and isinstance(value, expected)
                and not (isinstance(value, bool) and expected is not bool)
            ):
                values[name] = value
        settings = cls(**values)
        settings.bound()
        return settings

    def bound(self) -> None:
        """Out-of-range numbers fall back to their defaults rather than break the app."""
        defaults = Settings()
        if not 0 <= self.port <= 65535:
            self.port = defaults.port
        if not 0 <= self.step_delay_ms <= 600_000:
            self.step_delay_ms = defaults.step_delay_ms
        if not 1_000 <= self.approval_wait_ms <= 600_000:
            self.approval_wait_ms = defaults.approval_wait_ms
        # Agents must hear 'awaiting_approval' before their own client gives up (about a minute),
        # and before the prompt itself times out.
        self.approval_wait_ms = min(self.approval_wait_ms, MAX_APPROVAL_WAIT_MS)
        if self.dialog_policy not in DIALOG_POLICIES:
            self.dialog_policy = defaults.dialog_policy
        if not 1 <= self.dialog_dismiss_after_s <= 3600:
            self.dialog_dismiss_after_s = defaults.dialog_dismiss_after_s
        # Settings add to redaction, never take from it: a file edited to `"redact_selectors": []` must
        # not make password fields and [data-sensitive] elements readable.
        added = [s.strip() for s in self.redact_selectors if isinstance(s, str) and s.strip()]
        self.redact_selectors = list(dict.fromkeys([*DEFAULT_REDACT, *added]))
        # Only absolute folders: a relative one would depend on where the app was started.
        self.upload_folders = [f for f in self.upload_folders if isinstance(f, str) and f.startswith(("/", "~"))]

    def save(self, path: Path) -> None:
        write_atomic(path, json.dumps(asdict(self), indent=2) + "\n")
