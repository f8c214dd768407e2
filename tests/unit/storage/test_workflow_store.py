"""Workflows on disk: listed valid or with their error, saved atomically and privately, watched, last runs."""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tabpilot.engine.workflows.workflows import parse_workflow
from tabpilot.storage.workflow_store import DiskWorkflowStore
from tests.support.waiting import until_sync

T = TypeVar("T")


def eventually(condition: Callable[[], T], *, timeout: float = 2.0, what: str = "") -> T:
    """Poll `condition` until it is truthy; fail after `timeout` seconds (the contract's 2 s)."""
    return until_sync(condition, timeout=timeout, interval=0.01, what=what)


def doc(workflow_id: str, name: str = "jobs", **extra: Any) -> dict[str, Any]:
    return {
        "workflow_id": workflow_id,
        "name": name,
        "steps": [{"type": "extract", "selector": "tr", "schema": {"n": "td"}}],
        **extra,
    }


def write(folder: Path, name: str, content: Any) -> Path:
    path = folder / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "workflows"


@pytest.fixture
def store(tmp_path: Path, folder: Path) -> Iterator[DiskWorkflowStore]:
    store = DiskWorkflowStore(folder, tmp_path / "runs")
    yield store
    store.close()


def ids(store: DiskWorkflowStore) -> list[str]:
    return [e.workflow_id for e in store.entries()]


def errors(store: DiskWorkflowStore) -> dict[str, str | None]:
    return {e.workflow_id: e.error for e in store.entries()}


# -- loading --------------------------------------------------------------------------------------


def test_load_creates_a_private_folder(store: DiskWorkflowStore, folder: Path) -> None:
    store.load()
    assert folder.is_dir()
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    assert store.entries() == []


def test_load_lists_valid_and_invalid_files_without_raising(store: DiskWorkflowStore, folder: Path) -> None:
    folder.mkdir()
    write(folder, "wf-good.json", doc("wf-good", origin="https://a.test"))
    write(folder, "wf-badjson.json", "{not json")
    write(folder, "wf-schema.json", {**doc("wf-schema"), "steps": [{"type": "levitate"}]})
    write(folder, "wf-noname.json", {"workflow_id": "wf-noname", "steps": [{"type": "scroll"}]})
    write(folder, "wf-mismatch.json", doc("wf-other"))
    write(folder, "wf-list.json", "[1, 2]")
    (folder / "wf-binary.json").write_bytes(b"\xff\xfe\x00garbage")
    write(folder, "wf-empty.json", "")
    write(folder, ".wf-hidden.json", doc("wf-hidden"))
    write(folder, "notes.txt", "not a workflow")
    (folder / "sub.json").mkdir()
    store.load()
    found = errors(store)
    assert sorted(found) == [
        "wf-badjson",
        "wf-binary",
        "wf-empty",
        "wf-good",
        "wf-list",
        "wf-mismatch",
        "wf-noname",
        "wf-schema",
    ]
    assert ids(store) == sorted(found)
    assert found["wf-good"] is None
    assert (found["wf-badjson"] or "").startswith("not valid JSON:")
    assert (found["wf-empty"] or "").startswith("not valid JSON:")
    assert "unknown step type 'levitate'" in (found["wf-schema"] or "")
    assert "'name' is required" in (found["wf-noname"] or "")
    assert found["wf-mismatch"] == "workflow_id 'wf-other' does not match the file name wf-mismatch.json"
    assert found["wf-list"] == "wf-list.json must be a JSON object."
    assert found["wf-binary"]
    good = store.get("wf-good")
    assert good is not None
    assert good.workflow is not None
    assert good.workflow.origin == "https://a.test"
    assert good.file == str(folder / "wf-good.json")
    bad = store.get("wf-badjson")
    assert bad is not None
    assert bad.workflow is None


def test_a_file_over_2_mb_is_listed_with_its_error(store: DiskWorkflowStore, folder: Path) -> None:
    folder.mkdir()
    write(folder, "wf-big.json", {**doc("wf-big"), "name": "x" * (2 * 1024 * 1024 + 1)})
    store.load()
    assert errors(store) == {"wf-big": "the file is larger than 2 MB"}


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.cookie)",
        " JavaScript:{{x}}",
        "data:text/html,<script>1</script>",
        "file:///etc/passwd",
    ],
)
def test_a_dropped_file_that_navigates_to_a_script_url_is_listed_invalid(
    store: DiskWorkflowStore, folder: Path, url: str
) -> None:
    """Running it was refused, but the list called it valid (and the tray offered to run it)."""
    folder.mkdir()
    write(folder, "wf-js.json", {**doc("wf-js"), "steps": [{"type": "navigate", "url": url}]})
    write(folder, "wf-ok.json", {**doc("wf-ok"), "steps": [{"type": "navigate", "url": "{{base}}/list"}]})
    store.load()
    listed = errors(store)
    assert set(listed) == {"wf-js", "wf-ok"} and listed["wf-ok"] is None
    assert listed["wf-js"] is not None and "http(s)" in listed["wf-js"] and "steps[0]" in listed["wf-js"]


def test_get_sees_a_file_written_a_moment_ago(store: DiskWorkflowStore, folder: Path) -> None:
    store.load()  # not watching: only get()'s own look at the disk can find it
    write(folder, "wf-new.json", doc("wf-new"))
    entry = store.get("wf-new")
    assert entry is not None
    assert entry.workflow is not None
    assert store.get("wf-missing") is None
    assert store.get("../workflows/wf-new") is None


# -- saving -----------------------------------------------------------------------------------------


def test_save_is_atomic_private_and_listed_at_once(store: DiskWorkflowStore, folder: Path) -> None:
    store.load()
    workflow = parse_workflow(doc("wf-jobs-20260128", origin="https://a.test", created_at="2026-01-28T10:00:00Z"))
    store.save(workflow)
    path = folder / "wf-jobs-20260128.json"
    assert os.listdir(folder) == ["wf-jobs-20260128.json"]  # no temp file left behind
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text(encoding="utf-8")) == workflow.document()
    assert ids(store) == ["wf-jobs-20260128"]
    workflow.name = "renamed"
    store.save(workflow)
    assert os.listdir(folder) == ["wf-jobs-20260128.json"]
    entry = store.get("wf-jobs-20260128")
    assert entry is not None
    assert entry.workflow is not None
    assert entry.workflow.name == "renamed"


def test_a_failed_save_leaves_the_old_file_and_no_temp(
    store: DiskWorkflowStore, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.load()
    workflow = parse_workflow(doc("wf-a"))
    store.save(workflow)
    before = (folder / "wf-a.json").read_text(encoding="utf-8")

    def broken(src: Any, dst: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    workflow.name = "new"
    with pytest.raises(OSError, match="disk full"):
        store.save(workflow)
    assert os.listdir(folder) == ["wf-a.json"]
    assert (folder / "wf-a.json").read_text(encoding="utf-8") == before


# -- runs -------------------------------------------------------------------------------------------


def run(n: int, status: str = "complete") -> dict[str, Any]:
    return {"correlation_id": f"corr-{n}", "finished_at": f"2026-01-28T10:{n:02d}:00+00:00", "status": status}


def test_add_run_keeps_the_newest_ten(store: DiskWorkflowStore, tmp_path: Path) -> None:
    store.load()
    store.save(parse_workflow(doc("wf-a")))
    for n in range(12):
        store.add_run("wf-a", run(n, "error" if n == 11 else "complete"))
    runs = store.runs("wf-a")
    assert [r["correlation_id"] for r in runs] == [f"corr-{n}" for n in range(11, 1, -1)]
    runs_file = tmp_path / "runs" / "wf-a.json"
    assert stat.S_IMODE(runs_file.stat().st_mode) == 0o600
    assert os.listdir(tmp_path / "runs") == ["wf-a.json"]
    entry = store.get("wf-a")
    assert entry is not None
    assert (entry.last_run, entry.last_status) == ("2026-01-28T10:11:00+00:00", "error")
    assert store.entries()[0].last_status == "error"


def test_last_run_is_read_back_by_a_new_store(store: DiskWorkflowStore, tmp_path: Path, folder: Path) -> None:
    store.load()
    store.save(parse_workflow(doc("wf-a")))
    store.add_run("wf-a", run(1))
    again = DiskWorkflowStore(folder, tmp_path / "runs")
    again.load()
    (entry,) = again.entries()
    assert (entry.last_run, entry.last_status) == ("2026-01-28T10:01:00+00:00", "complete")
    assert again.runs("wf-a") == [run(1)]


def test_unreadable_runs_are_no_runs(store: DiskWorkflowStore, tmp_path: Path) -> None:
    store.load()
    store.save(parse_workflow(doc("wf-a")))
    (tmp_path / "runs").mkdir(exist_ok=True)  # load() makes it (0700)
    (tmp_path / "runs" / "wf-a.json").write_text("{oops", encoding="utf-8")
    assert store.runs("wf-a") == []
    (tmp_path / "runs" / "wf-a.json").write_text('{"not": "a list"}', encoding="utf-8")
    assert store.runs("wf-a") == []
    (tmp_path / "runs" / "wf-a.json").write_text('[1, {"status": "complete"}]', encoding="utf-8")
    assert store.runs("wf-a") == [{"status": "complete"}]
    assert store.runs("wf-never") == []
    store.add_run("wf-a", run(5))
    assert [r.get("correlation_id") for r in store.runs("wf-a")] == ["corr-5", None]


# -- deleting ---------------------------------------------------------------------------------------


def test_delete_takes_the_workflow_and_its_runs_off_the_list_and_keeps_them_aside(
    store: DiskWorkflowStore, tmp_path: Path, folder: Path
) -> None:
    store.load()
    store.save(parse_workflow(doc("wf-a")))
    store.save(parse_workflow(doc("wf-b")))
    store.add_run("wf-a", run(1))
    assert store.delete("wf-a") is True
    assert ids(store) == ["wf-b"]
    assert sorted(os.listdir(folder)) == [".deleted", "wf-b.json"]
    assert store.runs("wf-a") == []
    assert not (tmp_path / "runs" / "wf-a.json").exists()
    kept = sorted(os.listdir(folder / ".deleted"))
    assert len(kept) == 2 and kept[0].startswith("wf-a.") and kept[1].endswith(".runs.json")
    assert json.loads((folder / ".deleted" / kept[0]).read_text())["workflow_id"] == "wf-a"
    store.refresh(folder / ".deleted" / kept[0])
    assert ids(store) == ["wf-b"], "what is kept aside is not listed"
    assert store.delete("wf-a") is False
    assert store.delete("../runs/wf-a") is False
    # a new workflow saved under the same id starts without the old one's last run
    store.save(parse_workflow(doc("wf-a")))
    entry = store.get("wf-a")
    assert entry is not None
    assert (entry.last_run, entry.last_status) == (None, None)


# -- watching ---------------------------------------------------------------------------------------


def test_hand_edits_show_up_within_two_seconds(store: DiskWorkflowStore, folder: Path) -> None:
    changes = threading.Semaphore(0)
    store.changed.subscribe(changes.release)
    store.watch()

    path = write(folder, "wf-hand.json", doc("wf-hand", name="by hand"))
    eventually(lambda: "wf-hand" in ids(store), what="a new file in entries()")
    entry = eventually(lambda: next((e for e in store.entries() if e.workflow is not None), None))
    assert entry.workflow is not None
    assert entry.workflow.name == "by hand"

    write(folder, "wf-hand.json", doc("wf-hand", name="edited"))
    eventually(
        lambda: any(e.workflow is not None and e.workflow.name == "edited" for e in store.entries()),
        what="the edit",
    )

    path.write_text("{broken", encoding="utf-8")
    eventually(lambda: (errors(store).get("wf-hand") or "").startswith("not valid JSON"), what="the broken edit")

    path.unlink()
    eventually(lambda: ids(store) == [], what="the deletion")
    assert changes.acquire(timeout=0)  # listeners were told


def test_an_editor_saving_through_a_temp_file(store: DiskWorkflowStore, folder: Path) -> None:
    store.watch()
    temp = write(folder, ".wf-ed.json.swp", doc("wf-ed"))
    os.replace(temp, folder / "wf-ed.json")
    eventually(lambda: ids(store) == ["wf-ed"], what="the renamed file")
    assert errors(store) == {"wf-ed": None}


def test_a_broken_file_dropped_in_breaks_nothing(store: DiskWorkflowStore, folder: Path) -> None:
    store.watch()
    write(folder, "wf-ok.json", doc("wf-ok"))
    write(folder, "wf-bad.json", {"workflow_id": "wf-bad"})
    eventually(lambda: sorted(ids(store)) == ["wf-bad", "wf-ok"], what="both files")
    eventually(lambda: errors(store)["wf-bad"] is not None and errors(store)["wf-ok"] is None, what="both parsed")
    write(folder, "other.txt", "x")
    write(folder, ".hidden.json", doc("hidden"))
    store.save(parse_workflow(doc("wf-saved")))
    assert "wf-saved" in ids(store)
    eventually(lambda: sorted(ids(store)) == ["wf-bad", "wf-ok", "wf-saved"], what="the saved one")


def test_a_failing_listener_is_contained(store: DiskWorkflowStore, folder: Path) -> None:
    calls: list[str] = []

    def broken() -> None:
        calls.append("broken")
        raise RuntimeError("listener bug")

    store.changed.subscribe(broken)
    store.changed.subscribe(lambda: calls.append("ok"))
    store.load()
    store.save(parse_workflow(doc("wf-a")))
    assert calls[-2:] == ["broken", "ok"]
    assert ids(store) == ["wf-a"]


def test_close_is_safe_twice_and_without_watching(tmp_path: Path) -> None:
    idle = DiskWorkflowStore(tmp_path / "a", tmp_path / "ra")
    idle.close()
    watched = DiskWorkflowStore(tmp_path / "b", tmp_path / "rb")
    watched.watch()
    watched.close()
    watched.close()


def test_the_runs_folder_is_the_users_alone(store: DiskWorkflowStore, tmp_path: Path) -> None:
    """runs/ was made 0755 (its files 0600) while every other folder of the home is 0700."""
    store.load()
    assert stat.S_IMODE((tmp_path / "runs").stat().st_mode) == 0o700


def test_a_fifo_dropped_in_is_listed_as_invalid_and_blocks_nothing(store: DiskWorkflowStore, folder: Path) -> None:
    """Issue 18: a FIFO in workflows/ blocked the watcher thread for good (later files never listed)."""
    folder.mkdir()
    os.mkfifo(folder / "wf-early.json")
    store.watch()  # the load reads the folder: a FIFO there must not stop it
    assert "not a regular file: it is a FIFO" in (errors(store)["wf-early"] or "")
    os.mkfifo(folder / "wf-trap.json")
    write(folder, "wf-after.json", doc("wf-after"))
    eventually(lambda: errors(store).get("wf-after", "missing") is None, what="the file after the FIFO")
    assert "not a regular file" in (errors(store)["wf-trap"] or "")
    assert store.get("wf-trap") is not None and store.get("wf-trap").workflow is None  # type: ignore[union-attr]
