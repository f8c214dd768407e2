"""What a crash or a long life leaves behind is tidied: stale temp files, the deleted-workflows folder;
and the store never trips over an id that cannot be a file name."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.workflows.workflows import parse_workflow
from tabpilot.storage import statefile, workflow_store
from tabpilot.storage.atomic import remove_stale_temp_files
from tabpilot.storage.settings import Settings
from tabpilot.storage.workflow_store import DELETED_FOLDER, DiskWorkflowStore


def workflow(workflow_id: str, value: str = "x") -> object:
    return parse_workflow(
        {"workflow_id": workflow_id, "name": "w", "steps": [{"type": "fill", "selector": "#q", "value": value}]}
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DiskWorkflowStore]:
    store = DiskWorkflowStore(tmp_path / "workflows", tmp_path / "runs")
    store.load()
    yield store
    store.close()


def _temp(folder: Path, name: str, age_s: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f".{name}.ab12cd34.tmp"
    path.write_text("{half", encoding="utf-8")
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def test_stale_temp_files_are_removed_at_start_and_fresh_ones_kept(tmp_path: Path) -> None:
    """100 kill -9 during saves left 4 half-written .tmp files that nothing ever removed."""
    workflows, runs, config, state = (tmp_path / n for n in ("workflows", "runs", "config", "state"))
    stale = [_temp(workflows, "a.json", 3600), _temp(runs, "a.json", 3600), _temp(config, "config.json", 3600)]
    stale.append(_temp(state, "tabpilot.state.json", 3600))
    fresh = _temp(workflows, "b.json", 0)  # another process may be writing it right now
    other = workflows / "notes.tmp"  # not one of ours: not hidden
    other.write_text("mine", encoding="utf-8")
    os.utime(other, (0, 0))

    DiskWorkflowStore(workflows, runs).load()
    Settings.load(config / "config.json")
    statefile.write(state / "tabpilot.state.json", statefile.AppState(pid=1, port=2, mode="serve"))

    assert [p for p in stale if p.exists()] == []
    assert fresh.exists()
    assert other.exists()
    assert remove_stale_temp_files(tmp_path / "missing") == 0


def test_deleting_the_same_id_twice_in_one_second_keeps_both_copies(store: DiskWorkflowStore) -> None:
    for value in ("first", "second", "third"):
        store.save(workflow("wf-a", value))  # type: ignore[arg-type]
        store.add_run("wf-a", {"status": value})
        assert store.delete("wf-a")
    trash = store.folder / DELETED_FOLDER
    copies = sorted(p for p in trash.glob("wf-a.*.json") if not p.name.endswith(".runs.json"))
    assert len(copies) == 3
    values = {json.loads(p.read_text())["steps"][0]["value"] for p in copies}
    assert values == {"first", "second", "third"}
    assert len(list(trash.glob("wf-a.*.runs.json"))) == 3


def test_the_deleted_folder_keeps_the_newest_and_drops_the_old(
    store: DiskWorkflowStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workflow_store, "DELETED_KEPT", 3)
    trash = store.folder / DELETED_FOLDER
    for n in range(5):
        store.save(workflow(f"wf-{n}"))  # type: ignore[arg-type]
        store.add_run(f"wf-{n}", {"status": "ok"})
        assert store.delete(f"wf-{n}")
        for copy in trash.glob(f"wf-{n}.*"):  # as if deleted (5 - n) minutes ago
            then = time.time() - (5 - n) * 60
            os.utime(copy, (then, then))
    store.save(workflow("wf-last"))  # type: ignore[arg-type]
    assert store.delete("wf-last")
    kept = sorted(p.name.split(".")[0] for p in trash.glob("*.json") if not p.name.endswith(".runs.json"))
    assert kept == ["wf-3", "wf-4", "wf-last"]
    assert sorted(p.name.split(".")[0] for p in trash.glob("*.runs.json")) == ["wf-3", "wf-4"]

    # and anything older than the age limit goes at the next start
    ancient = time.time() - workflow_store.DELETED_MAX_AGE_S - 60
    old = next(p for p in trash.glob("wf-3.*.json") if not p.name.endswith(".runs.json"))
    os.utime(old, (ancient, ancient))
    store.load()
    assert not old.exists()
    assert len(list(trash.glob("*.json"))) == 3  # wf-4, its runs, wf-last


def test_a_save_over_2_mb_is_refused_before_anything_is_written(store: DiskWorkflowStore) -> None:
    with pytest.raises(TabpilotError) as refused:
        store.save(workflow("wf-big", "x" * 3_000_000))  # type: ignore[arg-type]
    assert refused.value.code == "invalid_params"
    assert not (store.folder / "wf-big.json").exists()
    assert list(store.folder.glob(".*.tmp")) == []


@pytest.mark.parametrize("workflow_id", ["w" * 300, "é" * 150, "a\x00b", "../x", "a/b", ".hidden", ""])
def test_ids_that_cannot_be_file_names_are_simply_not_there(store: DiskWorkflowStore, workflow_id: str) -> None:
    """A workflow_id over 255 bytes once raised "File name too long" from the store."""
    assert store.get(workflow_id) is None
    assert store.delete(workflow_id) is False
    assert store.runs(workflow_id) == []
    store.add_run(workflow_id, {"status": "ok"})
    assert list(store.runs_folder.glob("*")) == []


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"workflow_id": "wf-n", "name": "w", "steps": [{"type": "delay", "ms": NaN}]}', "NaN"),
        ('{"workflow_id": "wf-n", "name": "w", "steps": ' + "[" * 3000 + "]" * 3000 + "}", "JSON"),
        ('{"workflow_id": "wf-n", "name": "w", "steps": ' + "[" * 100 + "]" * 100 + "}", "deeper"),
    ],
)
def test_a_file_with_nan_or_deep_nesting_is_listed_with_its_error(
    store: DiskWorkflowStore, content: str, said: str
) -> None:
    (store.folder / "wf-n.json").write_text(content, encoding="utf-8")
    store.load()
    entry = store.get("wf-n")
    assert entry is not None
    assert entry.workflow is None
    assert entry.error is not None and said in entry.error
