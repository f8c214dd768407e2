"""serve-autostart.log (what auto-started serves printed) does not grow without a cap."""

from __future__ import annotations

from pathlib import Path

from tabpilot.cli import client


def test_a_large_autostart_log_is_moved_aside_and_one_old_copy_kept(tmp_path: Path) -> None:
    log = tmp_path / "serve-autostart.log"
    old = tmp_path / "serve-autostart.log.1"
    log.write_bytes(b"x" * 100)
    client.cap_autostart_log(log)
    assert log.exists(), "a small log is left alone"
    log.write_bytes(b"a" * (client.AUTOSTART_LOG_MAX + 1))
    client.cap_autostart_log(log)
    assert not log.exists()
    assert old.stat().st_size == client.AUTOSTART_LOG_MAX + 1
    log.write_bytes(b"b" * (client.AUTOSTART_LOG_MAX + 1))
    client.cap_autostart_log(log)
    assert old.read_bytes()[:1] == b"b"  # one old copy, the latest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["serve-autostart.log.1"]


def test_no_log_yet_is_fine(tmp_path: Path) -> None:
    client.cap_autostart_log(tmp_path / "serve-autostart.log")
