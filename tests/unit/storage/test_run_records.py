"""Run records on disk: runs/<workflow_id>/<run_id>/run.json and data.jsonl, the newest RUNS_KEPT per workflow."""

from __future__ import annotations

import json
from pathlib import Path

from tabpilot.storage.run_records import RUNS_KEPT, DiskRunRecords


def run(n: int, status: str = "complete") -> dict[str, object]:
    return {"run_id": f"run-20260101-{n:06d}-000-abcdef", "workflow_id": "wf-a", "status": status}


def test_a_record_is_rewritten_in_place_and_read_back(tmp_path: Path) -> None:
    records = DiskRunRecords(tmp_path)
    records.write("wf-a", run(1, "running"))
    records.write("wf-a", run(1, "complete"))
    records.write_rows("wf-a", str(run(1)["run_id"]), [{"x": 1}, {"x": "ü"}])
    where = tmp_path / "wf-a" / str(run(1)["run_id"])
    assert json.loads((where / "run.json").read_text())["status"] == "complete"
    assert sorted(p.name for p in where.iterdir()) == ["data.jsonl", "run.json"]  # no temporary file left
    assert records.record(str(run(1)["run_id"])) == run(1)
    assert records.rows(str(run(1)["run_id"])) == [{"x": 1}, {"x": "ü"}]
    assert records.records() == [run(1)]


def test_each_workflow_keeps_its_newest_runs(tmp_path: Path) -> None:
    records = DiskRunRecords(tmp_path)
    for n in range(RUNS_KEPT + 3):
        records.write("wf-a", run(n))
    records.write("wf-b", {**run(0), "workflow_id": "wf-b", "run_id": "run-20250101-000000-000-abcdef"})
    kept = records.records("wf-a")
    assert len(kept) == RUNS_KEPT
    assert kept[0] == run(RUNS_KEPT + 2) and kept[-1] == run(3)  # newest first, the oldest three gone
    assert len(records.records("wf-b")) == 1  # another workflow's runs are its own


def test_names_that_cannot_be_folders_are_refused(tmp_path: Path) -> None:
    records = DiskRunRecords(tmp_path / "runs")
    records.write("../outside", run(1))
    records.write("wf-a", {**run(1), "run_id": "../../x"})
    assert not (tmp_path / "outside").exists()
    assert records.records() == []
    assert records.record("../x") is None
