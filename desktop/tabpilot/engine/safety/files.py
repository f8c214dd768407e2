"""Files that cross between the machine and a page: uploads read from allowed folders, downloads saved.

An upload takes files only from the home's `uploads/` folder or folders the person allowed in settings
(interface.md §4): a path is resolved (symlinks followed, `..` collapsed) before it is checked, so no
spelling of a path leads outside them. Inline files (`{name, content_base64, mime}`) come from the agent
itself and touch no folder. A download is saved under the home's `downloads/`, never elsewhere, with a
name made safe and made unique.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.safe_files import FileTooLarge, read_regular

MAX_UPLOAD_BYTES = 32 * 1024 * 1024
"""All files of one upload together (they travel to the browser in one message)."""
MAX_NAME = 120
_UNSAFE = re.compile(r"[^\w.\- ()+,@]+")


@dataclass(frozen=True)
class UploadFile:
    name: str
    mime: str
    data: bytes
    source: str
    """Where it came from, as a person reads it: the resolved path, or `inline`."""

    def wire(self) -> dict[str, Any]:
        return {"name": self.name, "mime": self.mime, "content_base64": base64.b64encode(self.data).decode("ascii")}


def _refuse(message: str, **details: Any) -> TabpilotError:
    return TabpilotError("invalid_params", message, param="files", **details)


def _roots_text(roots: Sequence[Path]) -> str:
    return " or ".join(str(r) for r in roots) if roots else "(none: this Tabpilot has no uploads folder)"


def resolve_upload_path(raw: str, uploads: Path | None, allowed: Sequence[Path] = ()) -> Path:
    """The file `raw` names, if it lies in uploads/ or an allowed folder; else invalid_params.

    A relative path is taken inside uploads/. The check is made on the real path (symlinks resolved), so
    `uploads/../secret` or a link in uploads/ pointing elsewhere is refused like any outside path.
    """
    roots = [r.expanduser().resolve() for r in ([uploads] if uploads is not None else []) + list(allowed)]
    if not raw.strip():
        raise _refuse("A file path in 'files' is empty.")
    if "\x00" in raw:  # the parameter's check refuses it first; a workflow file read back must not get past here
        raise _refuse("A file path in 'files' must not contain a NUL character (\\0): no file name has one.")
    given = Path(raw).expanduser()
    if not given.is_absolute():
        if uploads is None:
            raise _refuse(f"{shown(raw)} is relative and this Tabpilot has no uploads folder.")
        given = uploads / given
    try:
        real = given.resolve(strict=True)
    except (OSError, RuntimeError):
        raise _refuse(f"No file {shown(raw)}: uploads come from {_roots_text(roots)}.", path=raw) from None
    if not any(real.is_relative_to(root) for root in roots):
        raise _refuse(
            f"{shown(raw)} is outside the folders uploads may come from ({_roots_text(roots)}); put the file in "
            "the uploads folder, or ask the person to allow its folder in Tabpilot's settings.",
            path=raw,
        )
    if not real.is_file():
        raise _refuse(f"{shown(raw)} is not a file.", path=raw)
    return real


def _inline(item: dict[str, Any], index: int) -> UploadFile:
    name = item.get("name")
    content = item.get("content_base64")
    mime = item.get("mime")
    extra = sorted(set(item) - {"name", "content_base64", "mime"})
    if extra:
        raise _refuse(
            f"files[{index}]: unknown field {shown(extra[0])}; an inline file is {{name, content_base64, mime}}."
        )
    if not isinstance(name, str) or not name.strip() or "/" in name or "\\" in name or name in (".", ".."):
        raise _refuse(f"files[{index}]: 'name' must be a file name (no folders).")
    if not isinstance(content, str):
        raise _refuse(f"files[{index}]: 'content_base64' must be a base64 string.")
    if mime is not None and not isinstance(mime, str):
        raise _refuse(f"files[{index}]: 'mime' must be a string.")
    try:
        data = base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise _refuse(f"files[{index}]: 'content_base64' is not valid base64.") from None
    return UploadFile(name.strip(), mime or _guess_mime(name), data, "inline")


def _guess_mime(name: str) -> str:
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def check_upload_items(files: Any) -> None:
    """The shape of `files` (a list of paths and inline files), checked before anything is read."""
    if not isinstance(files, list) or not files:
        raise _refuse("'files' must be a non-empty list of paths or {name, content_base64, mime} objects.")
    for i, item in enumerate(files):
        if not isinstance(item, str | dict):
            raise _refuse(f"files[{i}] must be a path or a {{name, content_base64, mime}} object.")


def read_uploads(files: Any, uploads: Path | None, allowed: Sequence[Path] = ()) -> list[UploadFile]:
    """Every file of an upload, read; invalid_params for a file outside the allowed folders or too big."""
    check_upload_items(files)
    out: list[UploadFile] = []
    total = 0
    for i, item in enumerate(files):
        if isinstance(item, str):
            path = resolve_upload_path(item, uploads, allowed)
            try:
                # A regular file only, never waited on (a FIFO swapped in after the check), bounded.
                data = read_regular(path, MAX_UPLOAD_BYTES - total)
            except FileTooLarge:
                raise _refuse(
                    f"The files come to more than {MAX_UPLOAD_BYTES >> 20} MB, the most one upload takes."
                ) from None
            except OSError as exc:
                raise _refuse(f"{shown(item)} cannot be read: {exc.strerror or exc}.", path=item) from None
            out.append(UploadFile(path.name, _guess_mime(path.name), data, str(path)))
        else:
            out.append(_inline(item, i))
        total += len(out[-1].data)
        if total > MAX_UPLOAD_BYTES:
            raise _refuse(f"The files come to more than {MAX_UPLOAD_BYTES >> 20} MB, the most one upload takes.")
    return out


def describe_uploads(files: Any, uploads: Path | None, allowed: Sequence[Path] = ()) -> list[str]:
    """Each file as the approval prompt names it: a resolved path, or `name (inline, N bytes)`; checks
    paths (invalid_params before anyone is asked) without reading them."""
    check_upload_items(files)
    names: list[str] = []
    for i, item in enumerate(files):
        if isinstance(item, str):
            names.append(str(resolve_upload_path(item, uploads, allowed)))
        else:
            file = _inline(item, i)
            names.append(f"{file.name} (inline, {len(file.data)} bytes)")
    return names


# -- downloads ---------------------------------------------------------------------------------------


def safe_name(name: str, url: str, mime: str) -> str:
    """A file name for a download: the server's or the element's, else the URL's last part; no folders,
    nothing hidden, no characters a file system refuses; an extension from the type when it has none."""
    candidate = name or unquote(urlsplit(url).path.rsplit("/", 1)[-1])
    candidate = candidate.replace("\\", "/").rsplit("/", 1)[-1]
    candidate = _UNSAFE.sub("_", candidate).strip(" ._") or "download"
    stem, dot, ext = candidate.rpartition(".")
    if not dot:
        stem, ext = candidate, (mimetypes.guess_extension(mime) or "").lstrip(".") if mime else ""
    stem = stem[: MAX_NAME - len(ext) - 1] or "download"
    return f"{stem}.{ext}" if ext else stem


def save_download(folder: Path, name: str, data: bytes) -> Path:
    """Write `data` to a new file `folder/name` (`name (2).ext`, … when taken); never overwrites."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    for n in range(1, 1000):
        candidate = folder / (name if n == 1 else f"{stem} ({n}){'.' + ext if ext else ''}")
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        return candidate
    raise TabpilotError("internal", f"Could not find a free file name for {name} in {folder}.")
