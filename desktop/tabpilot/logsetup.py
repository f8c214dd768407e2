"""Logging to a rotating file under the home (and to stderr for serve), with no secret in it.

Three guards stand between a log call and the file:
- Libraries log at WARNING and above only, even under `-v`: their debug lines print what passes
  through them (qasync prints every Future's result, which is how the bridge token once reached the
  log; HTTP clients print requests).
- Every secret this run knows (the bridge token, the managed browser's launch secret, pairing codes,
  keyring secrets a workflow resolved) is replaced in each line, also in tracebacks, whoever logs it.
  Other code says what is secret with `register_secret_source`.
- One message repeated in a burst ("Too many open files" from a flood of sockets) is written
  `BURST_LINES` times per `BURST_WINDOW_S`, then once more as a count, so it cannot rotate the log
  away.
The file and its rotated copies are readable by the user only (0600).
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tabpilot.engine.safety.scrubbing import Scrubber
from tabpilot.paths import Paths

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"

LIBRARY_LOGGERS = (
    "qasync",
    "asyncio",
    "aiohttp",
    "websockets",
    "keyring",
    "secretstorage",
    "jeepney",
    "mcp",
    "httpx",
    "httpcore",
    "anyio",
    "sse_starlette",
    "starlette",
    "uvicorn",
    "playwright",
    "urllib3",
    "watchdog",
)
"""Libraries Tabpilot uses whose debug logging would print what passes through them."""
LIBRARY_LEVEL = logging.WARNING

BURST_LINES = 10
BURST_WINDOW_S = 60.0
MAX_TRACKED_MESSAGES = 500

_lock = threading.Lock()
_sources: weakref.WeakKeyDictionary[Any, Callable[[Any], Iterable[str]]] = weakref.WeakKeyDictionary()

Owner = TypeVar("Owner")


def register_secret_source(owner: Owner, values: Callable[[Owner], Iterable[str]]) -> None:
    """Never write what `values(owner)` gives at the time of a log line (secrets that change: a rotated
    token, the secrets a run resolves). Held only as long as `owner` lives."""
    with _lock:
        _sources[owner] = values


def secret_values() -> set[str]:
    with _lock:
        sources = list(_sources.items())
    found: set[str] = set()
    for owner, values in sources:
        for _ in range(3):  # the source may change on another thread while it is read
            try:
                found.update(v for v in values(owner) if isinstance(v, str) and v)
                break
            except RuntimeError:
                continue
    return found


class ScrubSecrets(logging.Filter):
    """Replaces every registered secret in a record: its message, arguments, traceback and stack."""

    def __init__(self) -> None:
        super().__init__()
        self._values: frozenset[str] = frozenset()
        self._scrubber = Scrubber(())

    def _current(self) -> Scrubber:
        values = frozenset(secret_values())
        if values != self._values:
            self._values, self._scrubber = values, Scrubber(values)
        return self._scrubber

    def filter(self, record: logging.LogRecord) -> bool:
        scrubber = self._current()
        if not scrubber:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: logging reports it when it formats; keep the raw parts
            message = f"{record.msg!s} {record.args!r}"
        clean = scrubber.text(message)
        if clean != message:
            record.msg, record.args = clean, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrubber.text(record.exc_text)
        if record.stack_info:
            record.stack_info = scrubber.text(record.stack_info)
        return True


@dataclass
class _Burst:
    started: float
    count: int = 0
    held: int = 0
    example: str = ""


class HoldRepeats(logging.Filter):
    """Writes the same message (logger, level, format string) at most BURST_LINES times per window; the
    copies held back are counted in one line when the window ends. WARNING and above only: debug and
    info lines repeat by nature (one per call)."""

    def __init__(self, handler: logging.Handler, *, lines: int = BURST_LINES, window_s: float = BURST_WINDOW_S) -> None:
        super().__init__()
        self.handler = handler
        self.lines = lines
        self.window_s = window_s
        self.clock: Callable[[], float] = time.monotonic
        self._bursts: dict[tuple[str, int, str], _Burst] = {}
        self._lock = threading.Lock()
        self._next_sweep = 0.0

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_tabpilot_summary", False):
            return True
        now = self.clock()
        summaries = self._ended(now) if now >= self._next_sweep else []
        keep = True
        if record.levelno >= logging.WARNING:
            key = (record.name, record.levelno, str(record.msg)[:300])
            with self._lock:
                burst = self._bursts.get(key)
                if burst is None or now - burst.started >= self.window_s:
                    if burst is not None and burst.held:
                        summaries.append(self._summary(key, burst))
                    burst = self._bursts[key] = _Burst(now)
                    while len(self._bursts) > MAX_TRACKED_MESSAGES:
                        old_key = next(iter(self._bursts))
                        old = self._bursts.pop(old_key)
                        if old.held:
                            summaries.append(self._summary(old_key, old))
                burst.count += 1
                if burst.count > self.lines:
                    burst.held += 1
                    if not burst.example:
                        with contextlib.suppress(Exception):
                            burst.example = record.getMessage()[:200]
                    keep = False
        for summary in summaries:
            self.handler.handle(summary)
        return keep

    def _ended(self, now: float) -> list[logging.LogRecord]:
        """Counts for the windows that are over (looked at no more than once a second)."""
        self._next_sweep = now + 1.0
        with self._lock:
            over = [(k, b) for k, b in self._bursts.items() if now - b.started >= self.window_s]
            for key, _ in over:
                del self._bursts[key]
        return [self._summary(k, b) for k, b in over if b.held]

    def flush(self) -> None:
        """Write the counts of whatever is held back now (when logging is taken down)."""
        with self._lock:
            held = [(k, b) for k, b in self._bursts.items() if b.held]
            self._bursts.clear()
        for key, burst in held:
            self.handler.handle(self._summary(key, burst))

    def _summary(self, key: tuple[str, int, str], burst: _Burst) -> logging.LogRecord:
        name, level, _ = key
        record = logging.LogRecord(
            name,
            level,
            __file__,
            0,
            "the message %r came %d more times within %.0f s (not written)",
            (burst.example, burst.held, self.window_s),
            None,
        )
        record._tabpilot_summary = True
        return record


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log file only its owner can read, whatever the umask (rotation renames, so the copies
    keep the mode)."""

    def _open(self) -> Any:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        _owner_only_fd(fd)
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)


def _owner_only_fd(fd: int) -> None:
    if hasattr(os, "fchmod"):
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o600)


def _owner_only(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.chmod(0o600)


def configure(paths: Paths, *, verbose: bool = False, stderr: bool = True) -> None:
    paths.log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    detach()
    for old in paths.log_dir.glob(paths.log_file.name + "*"):
        _owner_only(old)  # files an earlier version left readable by others
    root = logging.getLogger()
    file_handler = PrivateRotatingFileHandler(paths.log_file, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    file_handler.setFormatter(logging.Formatter(FORMAT))
    _guard(file_handler)
    root.addHandler(file_handler)
    if stderr:
        console = logging.StreamHandler(sys.stderr)
        console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        console.setLevel(logging.DEBUG if verbose else logging.WARNING)
        _guard(console)
        root.addHandler(console)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    clamp_libraries()


def clamp_libraries() -> None:
    """Libraries log warnings and errors only, also under -v (see the module's docstring)."""
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(LIBRARY_LEVEL)


def _guard(handler: logging.Handler) -> None:
    handler.addFilter(ScrubSecrets())
    handler.addFilter(HoldRepeats(handler))
    handler._tabpilot = True  # type: ignore[attr-defined]


def detach() -> None:
    """Remove the handlers `configure` added (tests that configure logging call this when done)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_tabpilot", False):
            for f in handler.filters:
                if isinstance(f, HoldRepeats):
                    f.flush()
            root.removeHandler(handler)
            handler.close()
