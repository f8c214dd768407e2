"""The log never holds a secret, even under -v, is readable by its owner only, and one repeated message
cannot flood it."""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabpilot import logsetup
from tabpilot.paths import Paths

TOKEN = "ARRRtoken-0123456789abcdef"


@pytest.fixture
def paths(tmp_path: Path) -> Iterator[Paths]:
    paths = Paths.resolve(tmp_path / "home")
    yield paths
    logsetup.detach()


class Holder:
    def __init__(self, *values: str) -> None:
        self.values = list(values)


def test_a_librarys_debug_line_and_our_own_lines_never_show_a_registered_secret(paths: Paths) -> None:
    logsetup.configure(paths, verbose=True, stderr=False)
    holder = Holder(TOKEN)
    logsetup.register_secret_source(holder, lambda h: h.values)
    logging.getLogger("qasync").debug("Setting Future result: %s", TOKEN)  # what once leaked the token
    logging.getLogger("aiohttp.client").debug("request with Bearer %s", TOKEN)
    logging.getLogger("tabpilot.test").info("the token is %s", TOKEN)
    try:
        raise RuntimeError(f"failed with {TOKEN}")
    except RuntimeError:
        logging.getLogger("tabpilot.test").exception("boom")
    logging.getLogger("tabpilot.test").debug("a debug line of ours")
    text = paths.log_file.read_text(encoding="utf-8")
    assert TOKEN not in text
    assert "the token is [REDACTED]" in text and "boom" in text and "a debug line of ours" in text
    assert "Setting Future result" not in text, "libraries do not log at debug level, even under -v"


def test_the_log_file_is_readable_by_its_owner_only(paths: Paths) -> None:
    logsetup.configure(paths, stderr=False)
    logging.getLogger("tabpilot.test").warning("hello")
    assert stat.S_IMODE(paths.log_file.stat().st_mode) == 0o600


def test_one_message_repeated_in_a_burst_is_written_a_few_times_then_counted(paths: Paths) -> None:
    logsetup.configure(paths, stderr=False)
    for n in range(500):
        logging.getLogger("tabpilot.bridge").error("Too many open files (%d)", n)
    logsetup.detach()  # writes the count of what was held back
    lines = paths.log_file.read_text(encoding="utf-8").splitlines()
    written = [line for line in lines if "Too many open files" in line]
    assert len(written) <= logsetup.BURST_LINES + 2
    assert any("more times" in line for line in written)
