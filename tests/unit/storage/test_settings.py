"""config.json: whatever is in it, the app starts with sane settings; what it saves it reads back."""

from __future__ import annotations

import json
import stat
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from tabpilot.storage.settings import DEFAULT_PORT, Settings


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "config.json"


def load_json(path: Path, raw: Any) -> Settings:
    path.write_text(json.dumps(raw), encoding="utf-8")
    return Settings.load(path)


def test_missing_file_gives_defaults(path: Path) -> None:
    settings = Settings.load(path)
    assert settings == Settings()
    assert settings.port == DEFAULT_PORT


@pytest.mark.parametrize("garbage", [b"{not json", b"", b"\xff\xfe\x00", b"[1,2]", b'"text"', b"null", b"42"])
def test_garbage_gives_defaults(path: Path, garbage: bytes) -> None:
    path.write_bytes(garbage)
    assert Settings.load(path) == Settings()


def test_an_unreadable_path_gives_defaults(tmp_path: Path) -> None:
    assert Settings.load(tmp_path) == Settings()  # a directory where the file should be


def test_unknown_keys_are_ignored(path: Path) -> None:
    settings = load_json(path, {"port": 9000, "theme": "dark", "__class__": "x"})
    assert settings.port == 9000
    assert not hasattr(settings, "theme")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("port", "9000"),
        ("port", True),
        ("port", 90.5),
        ("port", None),
        ("open_managed_at_start", "yes"),
        ("open_managed_at_start", 1),
        ("step_delay_ms", False),
        ("approval_wait_ms", [20000]),
        ("browser_executable", 5),
        ("redact_selectors", "input"),
    ],
)
def test_wrong_types_fall_back_to_the_default(path: Path, key: str, value: Any) -> None:
    settings = load_json(path, {key: value, "managed_headless": True})
    assert getattr(settings, key) == getattr(Settings(), key)
    assert type(getattr(settings, key)) is type(getattr(Settings(), key))
    assert settings.managed_headless is True  # the good values beside it are kept


def test_capability_toggles_are_not_settings(path: Path) -> None:
    """Like the pilot, the capability toggles live in the keyring: a file edit cannot turn one on."""
    settings = load_json(path, {"capabilities": {"capture_network_bodies": True}})
    assert not hasattr(settings, "capabilities")


def test_save_then_load_round_trips(path: Path) -> None:
    settings = Settings(
        port=50123,
        browser_executable="/usr/bin/chromium",
        managed_headless=True,
        open_managed_at_start=False,
        step_delay_ms=0,
        approval_wait_ms=5000,
    )
    settings.save(path)
    assert Settings.load(path) == settings
    assert json.loads(path.read_text(encoding="utf-8")) == asdict(settings)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_save_creates_the_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.json"
    Settings().save(path)
    assert Settings.load(path) == Settings()


def test_the_pilot_switch_is_not_a_setting(path: Path) -> None:
    """No file may turn AI Web Pilot on: config.json neither holds nor honours it."""
    path.write_text('{"ai_web_pilot": true, "port": 50000}', encoding="utf-8")
    settings = Settings.load(path)
    assert not hasattr(settings, "ai_web_pilot")
    settings.save(path)
    assert "ai_web_pilot" not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("key", "value"), [("port", 70000), ("port", -1), ("approval_wait_ms", 0), ("step_delay_ms", -5)]
)
def test_out_of_range_numbers_fall_back_to_the_default(path: Path, key: str, value: int) -> None:
    assert getattr(load_json(path, {key: value}), key) == getattr(Settings(), key)


def test_the_approval_wait_is_at_most_a_minute(path: Path) -> None:
    assert load_json(path, {"approval_wait_ms": 300_000}).approval_wait_ms == 60_000
    assert load_json(path, {"approval_wait_ms": 45_000}).approval_wait_ms == 45_000


@pytest.mark.parametrize(
    "given", [[], [".card-number"], ["", 5, "  .card-number "], ["[data-sensitive]", ".card-number"]]
)
def test_a_file_adds_redaction_selectors_but_never_takes_the_built_in_ones_away(path: Path, given: Any) -> None:
    """`"redact_selectors": []` once made `.sensitive` and `[data-sensitive]` read in clear."""
    from tabpilot.engine.core import DEFAULT_REDACT

    settings = load_json(path, {"redact_selectors": given})
    assert settings.redact_selectors[: len(DEFAULT_REDACT)] == list(DEFAULT_REDACT)
    extra = settings.redact_selectors[len(DEFAULT_REDACT) :]
    assert extra == ([] if given == [] else [".card-number"])


def test_settings_made_in_code_keep_the_built_in_selectors_once_bounded() -> None:
    from tabpilot.engine.core import DEFAULT_REDACT

    settings = Settings(redact_selectors=[".mine"])
    settings.bound()
    assert settings.redact_selectors == [*DEFAULT_REDACT, ".mine"]
