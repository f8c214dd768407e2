"""Reading only regular files, never waiting on one, never past a bound; writing by replacing (issue 18)."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tabpilot.safe_files import FileTooLarge, NotRegularFile, read_regular, replace_file

T = TypeVar("T")


def within(seconds: float, work: Callable[[], T]) -> T:
    """`work()`'s answer, or a failure if it has none after `seconds` (a read blocked on a FIFO)."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed back to the test's thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked on the file"
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def test_a_fifo_nobody_writes_to_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(NotRegularFile, match=r"pipe\.json is not a regular file: it is a FIFO"):
        within(5, lambda: read_regular(tmp_path / "pipe.json", 100))


def test_a_symlink_to_a_fifo_a_socket_and_a_folder_are_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "to-pipe.json").symlink_to(tmp_path / "pipe")
    with pytest.raises(NotRegularFile, match="a FIFO"):
        within(5, lambda: read_regular(tmp_path / "to-pipe.json", 100))
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(tmp_path / "sock.json"))
        with pytest.raises(NotRegularFile, match="a socket"):
            within(5, lambda: read_regular(tmp_path / "sock.json", 100))
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(NotRegularFile, match="a folder"):
        read_regular(tmp_path / "dir.json", 100)


def test_a_device_is_refused_and_never_read_without_end(tmp_path: Path) -> None:
    (tmp_path / "zero.json").symlink_to("/dev/zero")  # endless bytes, if it were read
    with pytest.raises(NotRegularFile, match="a device"):
        within(5, lambda: read_regular(tmp_path / "zero.json", 100))


def test_reads_stop_at_the_bound(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 100)
    assert read_regular(tmp_path / "a", 100) == b"x" * 100
    with pytest.raises(FileTooLarge, match="larger than 99 bytes"):
        read_regular(tmp_path / "a", 99)


def test_replace_file_never_writes_through_a_hard_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"keep")
    (tmp_path / "in").mkdir()
    os.link(outside, tmp_path / "in" / "name")
    replace_file(tmp_path / "in" / "name", b"new", mode=0o600)
    assert outside.read_bytes() == b"keep" and (tmp_path / "in" / "name").read_bytes() == b"new"
    assert os.listdir(tmp_path / "in") == ["name"]
