"""Every file Tabpilot writes, under TABPILOT_HOME when set, else the platform's user folders."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tabpilot.home import APP, LOCAL_SOCKET, folders

__all__ = ["APP", "Paths"]


@dataclass(frozen=True)
class Paths:
    config_dir: Path
    data_dir: Path
    state_dir: Path
    log_dir: Path

    @classmethod
    def resolve(cls, home: str | os.PathLike[str] | None = None) -> Paths:
        # The rule lives in home.py, on strings, so the shell CLI's fast path can use it without this module.
        return cls(*(Path(folder) for folder in folders(home)))

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.json"

    @property
    def state_file(self) -> Path:
        return self.state_dir / "tabpilot.state.json"

    @property
    def lock_file(self) -> Path:
        return self.state_dir / "tabpilot.lock"

    @property
    def local_socket(self) -> Path:
        """The app's local socket for `tabpilot mcp` and the shell CLI (0600: only this user's processes connect)."""
        return self.state_dir / LOCAL_SOCKET

    @property
    def token_file(self) -> Path:
        """The bridge token where no OS keyring can be reached (0600, beside the state file)."""
        return self.state_dir / "tabpilot.token"

    @property
    def vault_dir(self) -> Path:
        """Where no OS keyring can be reached: named secrets, pairings and approval rules (0600 files)."""
        return self.state_dir / "vault"

    @property
    def workflows_dir(self) -> Path:
        return self.data_dir / "workflows"

    @property
    def states_dir(self) -> Path:
        """Saved browser states (configure save_state), encrypted."""
        return self.data_dir / "states"

    @property
    def uploads_dir(self) -> Path:
        """Files an agent may upload (`interact upload`), besides the folders the person allowed in settings."""
        return self.data_dir / "uploads"

    @property
    def downloads_dir(self) -> Path:
        """Where `interact download` saves what it fetched."""
        return self.data_dir / "downloads"

    @property
    def artifacts_dir(self) -> Path:
        """What `generate` writes: screenshots, PDFs, archives, HARs, visual-diff baselines, generated tests."""
        return self.data_dir / "artifacts"

    @property
    def runs_dir(self) -> Path:
        return self.data_dir / "runs"

    @property
    def browser_profile(self) -> Path:
        return self.data_dir / "browser-profile"

    @property
    def managed_extension(self) -> Path:
        return self.data_dir / "managed-extension"

    @property
    def log_file(self) -> Path:
        return self.log_dir / "tabpilot.log"

    @property
    def keyring_account(self) -> str:
        """The keyring account of this home's bridge token: two homes never share one."""
        import hashlib

        return "bridge-token:" + hashlib.sha256(str(self.data_dir).encode()).hexdigest()[:16]

    def ensure(self) -> None:
        for folder in (
            self.config_dir,
            self.data_dir,
            self.state_dir,
            self.log_dir,
            self.workflows_dir,
            self.uploads_dir,
            self.downloads_dir,
            self.artifacts_dir,
        ):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
