"""Workflows on disk: `workflows/<workflow_id>.json`, watched, plus the last runs of each.

The files are the source of truth. A file added, edited or removed by hand shows up at once (watchdog);
an invalid file is listed with its error and breaks nothing. Saves are atomic.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import WorkflowEntry
from tabpilot.engine.workflows import Workflow, parse_workflow
from tabpilot.storage.atomic import write_atomic

log = logging.getLogger("tabpilot.workflows")

RUNS_KEPT = 10
MAX_FILE_BYTES = 2 * 1024 * 1024

DELETED_FOLDER = ".deleted"


def read_entry(path: Path) -> WorkflowEntry:
    stem = path.stem
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return WorkflowEntry(stem, str(path), error="the file is larger than 2 MB")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return WorkflowEntry(stem, str(path), error=f"cannot be read: {exc}")
    except ValueError as exc:
        return WorkflowEntry(stem, str(path), error=f"not valid JSON: {exc}")
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
        self.listeners: list[Callable[[], None]] = []
        """Called (from the watcher's thread) whenever the list changes."""

    # -- loading and watching -------------------------------------------------------------------

    def load(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fresh = {
            p.stem: read_entry(p)
            for p in sorted(self.folder.glob("*.json"))
            if not p.name.startswith(".") and p.is_file()  # a folder named x.json is not a workflow
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
        entry = read_entry(path) if path.exists() else None
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
        for listener in list(self.listeners):
            try:
                listener()
            except Exception:
                log.exception("a workflow-list listener failed")

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
            path = self.folder / f"{workflow_id}.json"
            if "/" in workflow_id or not path.is_file():
                return None
            self.refresh(path)
            with self._lock:
                entry = self._entries.get(workflow_id)
        return self._with_last_run(entry) if entry else None

    def save(self, workflow: Workflow) -> None:
        path = self.folder / f"{workflow.workflow_id}.json"
        write_atomic(path, json.dumps(workflow.document(), indent=2, ensure_ascii=False) + "\n", mode=0o600)
        self.refresh(path)

    def delete(self, workflow_id: str) -> bool:
        """Takes the workflow off the list; its file and runs are kept in `workflows/.deleted/` as
        `<id>.<time>.json` (nothing is lost: moved back as `<id>.json`, it is listed again)."""
        path = self.folder / f"{workflow_id}.json"
        if "/" in workflow_id or not path.exists():
            return False
        trash = self.folder / DELETED_FOLDER
        trash.mkdir(exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path.replace(trash / f"{workflow_id}.{stamp}.json")
        runs = self.runs_folder / f"{workflow_id}.json"
        if runs.exists():
            runs.replace(trash / f"{workflow_id}.{stamp}.runs.json")
        with self._lock:
            self._last.pop(workflow_id, None)  # a new workflow saved under this id has no runs yet
        self.refresh(path)
        return True

    def add_run(self, workflow_id: str, run: Mapping[str, Any]) -> None:
        runs = [dict(run), *self.runs(workflow_id)][:RUNS_KEPT]
        write_atomic(self.runs_folder / f"{workflow_id}.json", json.dumps(runs, ensure_ascii=False) + "\n")
        with self._lock:
            self._last[workflow_id] = (run.get("finished_at"), run.get("status"))
        self._notify()

    def runs(self, workflow_id: str) -> list[dict[str, Any]]:
        path = self.runs_folder / f"{workflow_id}.json"
        try:
            runs = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
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
