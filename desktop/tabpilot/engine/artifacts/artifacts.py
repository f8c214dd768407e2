"""Files that `generate` writes (screenshots, PDFs, archives, HARs, baselines, tests): always under the
home's artifacts folder, so an agent can never write over a file elsewhere. `path` from an agent is a
name or a relative path inside that folder; an absolute path is accepted only when it is inside it."""

from __future__ import annotations

import re
import time
from pathlib import Path

from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.safety.files import save_download
from tabpilot.safe_files import replace_file

_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")
MAX_NAME_BYTES = 255
"""The longest file or folder name file systems take."""


def artifacts_folder(ctx: CommandContext) -> Path:
    folder = ctx.engine.config.artifacts_dir
    if folder is None:
        raise TabpilotError("not_supported", "This Tabpilot has no artifacts folder: ask for the answer inline.")
    return folder


def artifact_path(folder: Path, path: str | None, *, kind: str, suffix: str) -> tuple[Path, bool]:
    """Where to write an artifact of `kind` (`screenshot`, `pdf`, …) and whether it may replace a file:
    `path` (inside `folder`, the artifacts folder; it may be replaced, as the agent named it) or, without
    one, a new `<kind>-<time>.<suffix>` that never replaces anything."""
    folder = folder.resolve()
    if path is None or not path.strip():
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return folder / f"{kind}-{stamp}.{suffix}", False
    if "\x00" in path:
        raise TabpilotError("invalid_params", "'path' must not contain a NUL character.", param="path")
    if any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for part in Path(path).parts):
        raise TabpilotError(
            "invalid_params", f"Each part of 'path' must be at most {MAX_NAME_BYTES} bytes (a file name).", param="path"
        )
    wanted = Path(path).expanduser()
    target = (wanted if wanted.is_absolute() else folder / wanted).resolve()
    if not target.is_relative_to(folder) or target == folder:
        raise TabpilotError(
            "invalid_params",
            f"'path' must be a file inside the artifacts folder {folder} (a name such as 'home.{suffix}' is "
            "enough); Tabpilot writes nowhere else.",
            param="path",
        )
    if target.suffix == "":
        target = target.with_suffix(f".{suffix}")
    return target, True


def write_artifact(ctx: CommandContext, path: str | None, data: bytes, *, kind: str, suffix: str) -> Path:
    """Write `data` as an artifact of the command's engine (see artifact_path); the path written."""
    return write_file(artifacts_folder(ctx), path, data, kind=kind, suffix=suffix)


def write_file(folder: Path, path: str | None, data: bytes, *, kind: str, suffix: str) -> Path:
    """Write `data` under `folder` (see artifact_path), readable by this user only; the path written."""
    target, replace = artifact_path(folder, path, kind=kind, suffix=suffix)
    if not replace:
        return save_download(target.parent, target.name, data)
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Never opened for writing: a hard link (or a FIFO) planted at that name is replaced, not written
        # through to a file outside the folder (issue 18).
        replace_file(target, data, mode=0o600)
    except (NotADirectoryError, IsADirectoryError, FileExistsError) as exc:
        # A part of the path is a file, or the path is a folder: the agent's name, not Tabpilot, is wrong.
        raise TabpilotError("invalid_params", f"Cannot write 'path' there: {exc.strerror}.", param="path") from None
    return target


def safe_stem(text: str, limit: int = 80) -> str:
    """`text` (a URL, a page title) as part of a file name."""
    return _UNSAFE.sub("_", text).strip(" ._")[:limit] or "page"
