"""Atomic writes: readers see old or new contents, never half; no temp files are left behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tabpilot.storage.atomic import write_atomic


def test_writes_creates_folders_and_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "wf.json"
    write_atomic(path, "first ✓")
    write_atomic(path, "second")
    assert path.read_text(encoding="utf-8") == "second"
    assert os.listdir(path.parent) == ["wf.json"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_mode_is_honoured(tmp_path: Path) -> None:
    path = tmp_path / "public.json"
    write_atomic(path, "{}", mode=0o644)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_failed_write_keeps_the_old_file_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.json"
    write_atomic(path, "old")

    def refuse(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(path, "new")
    assert path.read_text(encoding="utf-8") == "old"
    assert os.listdir(tmp_path) == ["config.json"]
