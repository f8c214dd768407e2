"""Where `generate` writes: inside the home's artifacts folder, never elsewhere, never over a file unasked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tabpilot.engine.artifacts.artifacts import write_file
from tabpilot.engine.errors import TabpilotError


def test_an_unnamed_artifact_gets_a_new_file_each_time(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    first = write_file(folder, None, b"one", kind="screenshot", suffix="png")
    second = write_file(folder, None, b"two", kind="screenshot", suffix="png")
    assert first != second and first.parent == second.parent == (tmp_path / "artifacts").resolve()
    assert first.read_bytes() == b"one" and second.read_bytes() == b"two"
    assert first.name.startswith("screenshot-") and first.suffix == ".png"
    assert first.stat().st_mode & 0o777 == 0o600


def test_a_named_artifact_lands_inside_the_folder_and_may_be_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    path = write_file(folder, "shots/home", b"a", kind="screenshot", suffix="png")
    assert path == (tmp_path / "artifacts" / "shots" / "home.png").resolve()
    assert write_file(folder, "shots/home.png", b"b", kind="screenshot", suffix="png") == path
    assert path.read_bytes() == b"b"


@pytest.mark.parametrize(
    "outside", ["../escape.png", "/etc/passwd", "~/.bashrc", "a/../../b.png", "a\x00b.png", "é" * 200 + ".har"]
)
def test_a_path_outside_the_folder_is_refused_and_nothing_is_written(tmp_path: Path, outside: str) -> None:
    folder = tmp_path / "artifacts"
    with pytest.raises(TabpilotError) as refused:
        write_file(folder, outside, b"x", kind="screenshot", suffix="png")
    assert refused.value.code == "invalid_params" and refused.value.details["param"] == "path"
    assert not (tmp_path / "escape.png").exists()


def test_a_folder_or_a_file_in_the_way_is_invalid_params(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    write_file(folder, "taken.png", b"x", kind="screenshot", suffix="png")
    for path in ("taken.png/inside.png", "."):
        with pytest.raises(TabpilotError) as refused:
            write_file(folder, path, b"y", kind="screenshot", suffix="png")
        assert refused.value.code == "invalid_params"


def test_a_hard_link_in_the_folder_is_replaced_not_written_through(tmp_path: Path) -> None:
    """Issue 18: a hard link artifacts/hard.png → a file outside the home was overwritten by `generate
    screenshot path:"hard.png"`. The new picture replaces the name; the file outside is untouched."""
    folder = tmp_path / "artifacts"
    folder.mkdir()
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"the person's own file")
    os.link(outside, folder / "hard.png")
    written = write_file(folder, "hard.png", b"picture", kind="screenshot", suffix="png")
    assert outside.read_bytes() == b"the person's own file"
    assert written.read_bytes() == b"picture" and written.stat().st_nlink == 1
    assert written.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in folder.iterdir()) == ["hard.png"]  # no temporary file left behind


def test_a_fifo_in_the_way_is_replaced_without_waiting_on_it(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    folder.mkdir()
    os.mkfifo(folder / "pipe.png")
    written = write_file(folder, "pipe.png", b"picture", kind="screenshot", suffix="png")
    assert written.is_file() and written.read_bytes() == b"picture"
