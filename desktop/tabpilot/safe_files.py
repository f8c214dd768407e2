"""Reading and writing files a local program (or an agent) may have planted something else at.

Anyone who can write to the home can put a FIFO, a socket or a device where Tabpilot expects a file: a
plain `open()` of a FIFO blocks until someone writes to it, for ever if nobody does (the thread reading it,
say the workflow watcher, is gone for good). And a hard link where Tabpilot writes makes a plain
`open(path, "w")` write into a file anywhere on the disk. So reads take regular files only, never wait,
and never read more than asked; writes make a new file and rename it over the old name.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class NotRegularFile(OSError):
    """The path is a FIFO, a socket, a device or a folder: nothing Tabpilot reads."""


class FileTooLarge(OSError):
    """The file holds more bytes than the reader takes."""


def kind_of(mode: int) -> str:
    """What a non-regular file is, as a person reads it."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "something other than a file"


def _size(n: int) -> str:
    return f"{n / (1 << 20):g} MB" if n >= 1 << 20 else f"{n} bytes"


def _regular(mode: int, path: Path) -> None:
    if not stat.S_ISREG(mode):
        raise NotRegularFile(f"{path.name} is not a regular file: it is {kind_of(mode)}")


def read_regular(path: Path, max_bytes: int) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed), at most `max_bytes` of them.

    NotRegularFile for anything else, checked before it is opened (opening some devices has effects of its
    own) and again on what was opened (it may have been swapped in between); FileTooLarge past `max_bytes`,
    however the size was reported; other OSErrors as they come. Never blocks on the file.
    """
    _regular(os.stat(path).st_mode, path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        _regular(info.st_mode, path)
        if info.st_size > max_bytes:
            raise FileTooLarge(f"{path.name} is larger than {_size(max_bytes)}")
        chunks: list[bytes] = []
        left = max_bytes + 1  # one more than allowed: a file that grew past the limit is seen to
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise FileTooLarge(f"{path.name} is larger than {_size(max_bytes)}")
    return data


def read_regular_text(path: Path, max_bytes: int) -> str:
    """`read_regular`, decoded as UTF-8 (UnicodeDecodeError when it is not)."""
    return read_regular(path, max_bytes).decode("utf-8")


def replace_file(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Write `data` as the file `path` by writing a new file beside it and renaming it over the name.

    Whatever `path` was (a hard link to a file elsewhere, a symlink, a FIFO), it is replaced, never
    opened: nothing outside is written through it. A reader sees the old contents or the new, never half.
    """
    # The temporary name must fit in a name too (255 bytes) beside the longest name a caller may give.
    short = path.name.encode("utf-8", "surrogateescape")[:200].decode("utf-8", "ignore")
    fd, tmp = tempfile.mkstemp(prefix=f".{short}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
