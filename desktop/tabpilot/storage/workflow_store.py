"""Workflows on disk: `workflows/<workflow_id>.json`, watched, plus the last runs of each.

The files are the source of truth. A file added, edited or removed by hand shows up at once (watchdog);
an invalid file is listed with its error and breaks nothing. Saves are atomic.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from tabpilot.engine.contract import limits
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import WorkflowEntry
from tabpilot.engine.workflows.workflows import MAX_FILE_BYTES, Workflow, parse_workflow
from tabpilot.observers import Observers
from tabpilot.safe_files import FileTooLarge, NotRegularFile, read_regular_text
from tabpilot.storage.atomic import remove_stale_temp_files, write_atomic

log = logging.getLogger("tabpilot.workflows")

RUNS_KEPT = 10
MAX_ID_BYTES = 200
"""Longer names cannot be files (255 bytes, less `.json` and the stamp a deleted copy gets)."""

RUNS_MAX_BYTES = 64 * 1024 * 1024
"""The most a runs file is read of (ten runs, each with the rows it extracted): only a bound, so that a
file or device put in its place cannot make the app read without end."""

DELETED_FOLDER = ".deleted"
DELETED_KEPT = 200
DELETED_MAX_AGE_S = 90 * 24 * 3600
"""Deleted workflows are kept for restoring, but not forever: the oldest go first."""

__all__ = ["MAX_FILE_BYTES", "DiskWorkflowStore", "read_entry"]


def file_id_ok(workflow_id: str) -> bool:
    """Whether `workflow_id` can name a file in the folder (and nothing outside it)."""
    return (
        isinstance(workflow_id, str)
        and 0 < len(workflow_id.encode("utf-8", "surrogatepass")) <= MAX_ID_BYTES
        and not workflow_id.startswith(".")
        and not any(c in workflow_id for c in "/\\\0")
    )


def read_entry(path: Path) -> WorkflowEntry:
    stem = path.stem
    try:
        # Regular files only, never waited on: a FIFO dropped here would block the watcher for good.
        doc = limits.loads(read_regular_text(path, MAX_FILE_BYTES))
    except FileTooLarge:
        return WorkflowEntry(stem, str(path), error="the file is larger than 2 MB")
    except NotRegularFile as exc:
        return WorkflowEntry(stem, str(path), error=f"{exc}; a workflow is a JSON file")
    except (OSError, UnicodeDecodeError) as exc:
        return WorkflowEntry(stem, str(path), error=f"cannot be read: {exc}")
    except ValueError as exc:
        return WorkflowEntry(stem, str(path), error=f"not valid JSON: {exc}")
    trouble = limits.problem(doc, limits.MAX_WIRE_DEPTH)
    if trouble is not None:
        return WorkflowEntry(stem, str(path), error=f"the file {trouble}")
    try:
        workflow = parse_workflow(doc, where=path.name)
    except TabpilotError as exc:
        return WorkflowEntry(stem, str(path), error=exc.message)
    if workflow.workflow_id != stem:
        return WorkflowEntry(
            stem, str(path), error=f"workflow_id '{workflow.workflow_id}' does not match the file name {path.name}"
        )
    return WorkflowEntry(stem, str(path), workflow=workflow)


class _Events(FileSystemEventHandler):
    def __init__(self, store: DiskWorkflowStore) -> None:
        self.store = store

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in ("opened", "closed_no_write"):
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw:
                self.store.refresh(Path(str(raw)))


class DiskWorkflowStore:
    def __init__(self, folder: Path, runs_folder: Path) -> None:
        self.folder = folder
        self.runs_folder = runs_folder
        self._entries: dict[str, WorkflowEntry] = {}
        self._last: dict[str, tuple[str | None, str | None]] = {}
        self._lock = threading.Lock()
        self._observer: Any = None
        self.changed: Observers[[]] = Observers("workflow list")
        """Told (on the watcher's thread) whenever the list or a workflow's last run changes."""

    # -- loading and watching -------------------------------------------------------------------

    def load(self) -> None:
        for folder in (self.folder, self.runs_folder):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)  # only the user reads workflows and runs
        for folder in (self.folder, self.runs_folder):
            remove_stale_temp_files(folder)  # half-written saves a crash left behind
        self._trim_deleted()
        fresh = {
            p.stem: read_entry(p)
            for p in sorted(self.folder.glob("*.json"))
            if not p.name.startswith(".") and not p.is_dir()  # a folder named x.json is not a workflow
        }
        with self._lock:
            self._entries = fresh
        self._notify()

    def watch(self) -> None:
        self.load()
        observer = Observer()
        observer.schedule(_Events(self), str(self.folder), recursive=False)
        observer.daemon = True
        observer.start()
        self._observer = observer

    def close(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    def refresh(self, path: Path) -> None:
        if path.parent != self.folder or path.suffix != ".json" or path.name.startswith("."):
            return
        entry = read_entry(path) if path.exists() and not path.is_dir() else None
        with self._lock:
            before = self._entries.get(path.stem)
            if entry is None:
                self._entries.pop(path.stem, None)
            else:
                self._entries[path.stem] = entry
        if before != entry:
            log.info("workflow file %s %s", path.name, "removed" if entry is None else "changed")
            self._notify()

    def _notify(self) -> None:
        self.changed.notify()

    # -- WorkflowStore --------------------------------------------------------------------------

    def entries(self) -> list[WorkflowEntry]:
        with self._lock:
            items = sorted(self._entries.values(), key=lambda e: e.workflow_id)
        return [self._with_last_run(e) for e in items]

    def get(self, workflow_id: str) -> WorkflowEntry | None:
        with self._lock:
            entry = self._entries.get(workflow_id)
        if entry is None:
            # A file written a moment ago may not have reached the watcher yet.
            if not file_id_ok(workflow_id):
                return None
            path = self.folder / f"{workflow_id}.json"
            if not path.is_file():
                return None
            self.refresh(path)
            with self._lock:
                entry = self._entries.get(workflow_id)
        return self._with_last_run(entry) if entry else None

    def save(self, workflow: Workflow) -> None:
        if not file_id_ok(workflow.workflow_id):
            raise TabpilotError("invalid_params", "This workflow_id cannot name a file.", param="workflow_id")
        text = json.dumps(workflow.document(), indent=2, ensure_ascii=False) + "\n"
        if len(text.encode()) > MAX_FILE_BYTES:
            # Never save what would then be listed as too large to read.
            raise TabpilotError(
                "invalid_params", "The workflow is larger than 2 MB as a file; it was not saved.", param="workflow"
            )
        path = self.folder / f"{workflow.workflow_id}.json"
        write_atomic(path, text, mode=0o600)
        self.refresh(path)

    def delete(self, workflow_id: str) -> bool:
        """Takes the workflow off the list; its file and runs are kept in `workflows/.deleted/` as
        `<id>.<time>.json` (nothing is lost: moved back as `<id>.json`, it is listed again). The newest
        DELETED_KEPT are kept, none older than DELETED_MAX_AGE_S."""
        if not file_id_ok(workflow_id):
            return False
        path = self.folder / f"{workflow_id}.json"
        if not path.exists():
            return False
        trash = self.folder / DELETED_FOLDER
        trash.mkdir(exist_ok=True)
        stamp = _free_stamp(trash, workflow_id)
        kept = trash / f"{workflow_id}.{stamp}.json"
        path.replace(kept)
        os.utime(kept)  # its age in the trash counts from now
        runs = self.runs_folder / f"{workflow_id}.json"
        if runs.exists():
            runs.replace(trash / f"{workflow_id}.{stamp}.runs.json")
        self._trim_deleted()
        with self._lock:
            self._last.pop(workflow_id, None)  # a new workflow saved under this id has no runs yet
        self.refresh(path)
        return True

    def _trim_deleted(self) -> None:
        trash = self.folder / DELETED_FOLDER
        try:
            copies = [
                (p.stat().st_mtime, p)
                for p in trash.glob("*.json")
                if not p.name.endswith(".runs.json") and p.is_file()
            ]
        except OSError:
            return
        copies.sort(key=lambda item: item[0], reverse=True)
        now = time.time()
        for n, (mtime, path) in enumerate(copies):
            if n >= DELETED_KEPT or now - mtime > DELETED_MAX_AGE_S:
                for gone in (path, path.with_name(path.name[: -len(".json")] + ".runs.json")):
                    try:
                        gone.unlink(missing_ok=True)
                    except OSError:
                        log.warning("could not remove the old deleted workflow %s", gone.name)

    def add_run(self, workflow_id: str, run: Mapping[str, Any]) -> None:
        if not file_id_ok(workflow_id):
            return
        runs = [dict(run), *self.runs(workflow_id)][:RUNS_KEPT]
        write_atomic(self.runs_folder / f"{workflow_id}.json", json.dumps(runs, ensure_ascii=False) + "\n")
        with self._lock:
            self._last[workflow_id] = (run.get("finished_at"), run.get("status"))
        self._notify()

    def runs(self, workflow_id: str) -> list[dict[str, Any]]:
        if not file_id_ok(workflow_id):
            return []
        path = self.runs_folder / f"{workflow_id}.json"
        try:
            runs = limits.loads(read_regular_text(path, RUNS_MAX_BYTES))
        except (OSError, ValueError, UnicodeDecodeError):
            return []
        return [r for r in runs if isinstance(r, dict)] if isinstance(runs, list) else []

    def _with_last_run(self, entry: WorkflowEntry) -> WorkflowEntry:
        with self._lock:
            known = self._last.get(entry.workflow_id)
        if known is None:
            runs = self.runs(entry.workflow_id)
            known = (runs[0].get("finished_at"), runs[0].get("status")) if runs else (None, None)
            with self._lock:
                self._last[entry.workflow_id] = known
        return WorkflowEntry(
            entry.workflow_id, entry.file, entry.workflow, entry.error, last_run=known[0], last_status=known[1]
        )


def _free_stamp(trash: Path, workflow_id: str) -> str:
    """A time stamp no earlier copy of this id uses: two deletes in one second must not overwrite."""
    base = time.strftime("%Y%m%d-%H%M%S")
    stamp, n = base, 1
    while (trash / f"{workflow_id}.{stamp}.json").exists() or (trash / f"{workflow_id}.{stamp}.runs.json").exists():
        n += 1
        stamp = f"{base}-{n}"
    return stamp
