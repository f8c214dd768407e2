"""The CLI writes an answer's pictures to files (a terminal has no use for base64): to PATH, into a
folder, or as new files here, never over a file it was not told to write."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tabpilot.cli.shell import save_attachments

PNG = {"mime_type": "image/png", "data": base64.b64encode(b"\x89PNG one").decode()}
JPEG = {"mime_type": "image/jpeg", "data": base64.b64encode(b"\xff\xd8 two").decode()}


def test_new_files_here_never_replace_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    first = save_attachments([PNG], None, "screenshot")
    second = save_attachments([PNG], None, "screenshot")
    assert first != second and all(Path(p).parent == tmp_path for p in first + second)
    assert Path(first[0]).name.startswith("screenshot-") and Path(first[0]).read_bytes() == b"\x89PNG one"


def test_a_path_is_the_file_and_several_pictures_are_named_beside_it(tmp_path: Path) -> None:
    (only,) = save_attachments([JPEG], str(tmp_path / "a.jpg"), "screenshot")
    assert only == str(tmp_path / "a.jpg") and Path(only).read_bytes() == b"\xff\xd8 two"
    three = save_attachments([PNG, PNG, PNG], str(tmp_path / "r.png"), "screenshot", ["mobile", "tablet", "desktop"])
    assert [Path(p).name for p in three] == ["r-mobile.png", "r-tablet.png", "r-desktop.png"]


def test_a_folder_gets_new_files_with_the_right_extension(tmp_path: Path) -> None:
    written = save_attachments([PNG, JPEG], str(tmp_path), "zoom_region")
    assert [Path(p).suffix for p in written] == [".png", ".jpg"]
    assert all(Path(p).parent == tmp_path and Path(p).name.startswith("zoom_region-") for p in written)
