"""The bundled extension's id: the one Chrome derives from the manifest's pinned key."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from tabpilot import resources

PINNED_ID = "mlkkpgdajhikmngjhninkfngfhbknalp"


def chrome_id_from_key(key_b64: str) -> str:
    """Chrome: sha256 of the DER public key, first 128 bits, each hex digit 0-f written as a-p."""
    der = base64.b64decode(key_b64)
    assert der[0] == 0x30  # a DER SEQUENCE (SubjectPublicKeyInfo)
    hex32 = hashlib.sha256(der).digest()[:16].hex()
    return hex32.translate(str.maketrans("0123456789abcdef", "abcdefghijklmnop"))


def test_extension_id_matches_chromes_algorithm() -> None:
    manifest = json.loads((resources.extension_dir() / "manifest.json").read_text(encoding="utf-8"))
    expected = chrome_id_from_key(manifest["key"])
    assert resources.extension_id() == expected == PINNED_ID
    assert resources.extension_origin() == f"chrome-extension://{PINNED_ID}"


def test_extension_dir_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "manifest.json").write_text("{}", encoding="utf-8")
    monkeypatch.setenv("TABPILOT_EXTENSION_DIR", str(tmp_path))
    assert resources.extension_dir() == tmp_path
    # An override without a manifest falls back to the bundled extension.
    monkeypatch.setenv("TABPILOT_EXTENSION_DIR", str(tmp_path / "missing"))
    assert (resources.extension_dir() / "manifest.json").is_file()
    assert resources.extension_dir() != tmp_path / "missing"
