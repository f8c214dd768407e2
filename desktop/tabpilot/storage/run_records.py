"""The record of every run on disk: `runs/<workflow_id>/<run_id>/run.json` and `data.jsonl` (issue 20).

The engine writes a run's record after each step (engine/workflows/runs.py), each time whole and atomically,
so a reader (the tray, `observe runs`, a crashed app's next start) sees the record of the last step done,
never half of one. Each folder keeps the newest RUNS_KEPT runs; the oldest go when a new one starts.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabpilot.engine.contract import limits
from tabpilot.engine.workflows.runs import ADHOC_FOLDER
from tabpilot.safe_files import read_regular_text
from tabpilot.storage.atomic import write_atomic
from tabpilot.storage.workflow_store import file_id_ok

log = logging.getLogger("tabpilot.runs")

RUNS_KEPT = 50
"""Runs kept per workflow (and in the folder of unsaved workflows' runs), newest first."""
RECORD_MAX_BYTES = 4 * 1024 * 1024
"""The most of a run.json that is read (a step log of at most MAX_STEPS steps is far less): a bound only."""
ROWS_MAX_BYTES = 64 * 1024 * 1024
RUN_ID = re.compile(r"run-[0-9A-Za-z-]{1,80}")


def folder_ok(folder: str) -> bool:
    return folder == ADHOC_FOLDER or file_id_ok(folder)


class DiskRunRecords:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _dir(self, folder: str, run_id: str) -> Path | None:
        if not folder_ok(folder) or not RUN_ID.fullmatch(run_id):
            return None
        return self.root / folder / run_id

    def write(self, folder: str, record: Mapping[str, Any]) -> None:
        where = self._dir(folder, str(record.get("run_id", "")))
        if where is None:
            log.warning("a run record with a folder or run_id that cannot name a file was not written")
            return
        new = not where.exists()
        where.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(where / "run.json", json.dumps(dict(record), ensure_ascii=False, indent=1) + "\n")
        if new:
            self._trim(where.parent)

    def write_rows(self, folder: str, run_id: str, rows: list[dict[str, Any]]) -> None:
        where = self._dir(folder, run_id)
        if where is None:
            return
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        write_atomic(where / "data.jsonl", text)

    def _trim(self, folder: Path) -> None:
        runs = sorted(p for p in folder.iterdir() if p.is_dir() and RUN_ID.fullmatch(p.name))
        for old in runs[: max(0, len(runs) - RUNS_KEPT)]:  # run ids sort by when the runs started
            shutil.rmtree(old, ignore_errors=True)

    def _run_dirs(self, folder: str | None) -> list[Path]:
        if folder is not None:
            folders = [self.root / folder] if folder_ok(folder) else []
        else:
            try:
                folders = [p for p in self.root.iterdir() if p.is_dir() and folder_ok(p.name)]
            except OSError:
                return []
        found: list[Path] = []
        for parent in folders:
            try:
                found.extend(p for p in parent.iterdir() if p.is_dir() and RUN_ID.fullmatch(p.name))
            except OSError:
                continue
        return sorted(found, key=lambda p: p.name, reverse=True)

    def records(self, folder: str | None = None) -> list[dict[str, Any]]:
        out = []
        for where in self._run_dirs(folder):
            record = _read_record(where)
            if record is not None:
                out.append(record)
        return out

    def _find(self, run_id: str) -> Path | None:
        if not RUN_ID.fullmatch(run_id):
            return None
        try:
            return next((p for p in self.root.glob(f"*/{run_id}") if p.is_dir() and folder_ok(p.parent.name)), None)
        except OSError:
            return None

    def record(self, run_id: str) -> dict[str, Any] | None:
        where = self._find(run_id)
        return _read_record(where) if where is not None else None

    def rows(self, run_id: str) -> list[dict[str, Any]]:
        where = self._find(run_id)
        if where is None:
            return []
        try:
            text = read_regular_text(where / "data.jsonl", ROWS_MAX_BYTES)
        except (OSError, UnicodeDecodeError):
            return []
        rows = []
        for line in text.splitlines():
            try:
                row = limits.loads(line)
            except ValueError:
                continue  # a line cut by a crash: the rows before it stand
            if isinstance(row, dict):
                rows.append(row)
        return rows


def _read_record(where: Path) -> dict[str, Any] | None:
    try:
        record = limits.loads(read_regular_text(where / "run.json", RECORD_MAX_BYTES))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return record if isinstance(record, dict) and record.get("run_id") == where.name else None
