"""Where the bundled extension and icons are, and the extension id its pinned key gives."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from functools import cache
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]


def extension_dir() -> Path:
    override = os.environ.get("TABPILOT_EXTENSION_DIR")
    for candidate in (
        Path(override) if override else None,
        _REPO / "extension",
        Path(__file__).parent / "_extension",
    ):
        if candidate is not None and (candidate / "manifest.json").is_file():
            return candidate
    raise FileNotFoundError("the Tabpilot extension folder is missing from this installation")


def icons_dir() -> Path:
    for candidate in (_REPO / "resources" / "icons", Path(__file__).parent / "_resources" / "icons"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the Tabpilot icons are missing from this installation")


@cache
def extension_id() -> str:
    """Chrome derives an extension's id from its public key: sha256, first 16 bytes, hex digits as a-p."""
    manifest = json.loads((extension_dir() / "manifest.json").read_text(encoding="utf-8"))
    digest = hashlib.sha256(base64.b64decode(manifest["key"])).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def extension_origin() -> str:
    return f"chrome-extension://{extension_id()}"
