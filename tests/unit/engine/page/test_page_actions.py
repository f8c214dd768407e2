"""The page actions' engine side: upload confinement to the allowed folders, what the approval prompt and
the activity show of an upload, exactly-one-condition checks, and downloads saved under downloads/."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.safety.files import read_uploads, resolve_upload_path, safe_name, save_download
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeApprovals, FakeBrowser


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path, Path]:
    uploads, allowed, outside = tmp_path / "uploads", tmp_path / "allowed", tmp_path / "outside"
    for folder in (uploads, allowed, outside):
        folder.mkdir()
    (uploads / "a.txt").write_text("in uploads")
    (allowed / "b.txt").write_text("in an allowed folder")
    (outside / "secret.txt").write_text("private")
    (uploads / "link.txt").symlink_to(outside / "secret.txt")
    return uploads, allowed, outside


def refused(raw: str, uploads: Path, allowed: tuple[Path, ...] = ()) -> TabpilotError:
    with pytest.raises(TabpilotError) as caught:
        resolve_upload_path(raw, uploads, allowed)
    assert caught.value.code == "invalid_params"
    return caught.value


def test_uploads_come_only_from_uploads_and_allowed_folders(folders: tuple[Path, Path, Path]) -> None:
    uploads, allowed, outside = folders
    assert resolve_upload_path("a.txt", uploads) == (uploads / "a.txt").resolve()
    assert resolve_upload_path(str(uploads / "a.txt"), uploads) == (uploads / "a.txt").resolve()
    assert resolve_upload_path(str(allowed / "b.txt"), uploads, (allowed,)) == (allowed / "b.txt").resolve()
    assert "outside the folders" in refused(str(outside / "secret.txt"), uploads, (allowed,)).message
    refused(str(allowed / "b.txt"), uploads)  # not allowed in settings: refused
    refused("../outside/secret.txt", uploads)  # `..` collapsed before the check
    refused(f"{uploads}/../outside/secret.txt", uploads)
    refused("link.txt", uploads)  # a link inside uploads/ pointing out is judged by where it points
    refused("/etc/passwd", uploads)
    assert "No file" in refused("missing.txt", uploads).message
    refused(".", uploads)  # a folder is not a file


def test_read_uploads_reads_paths_and_inline_files(folders: tuple[Path, Path, Path]) -> None:
    uploads, _, _ = folders
    inline = {"name": "x.bin", "content_base64": base64.b64encode(b"\x00\x01").decode(), "mime": "application/x-y"}
    files = read_uploads(["a.txt", inline], uploads)
    assert [(f.name, f.mime, f.data) for f in files] == [
        ("a.txt", "text/plain", b"in uploads"),
        ("x.bin", "application/x-y", b"\x00\x01"),
    ]
    for bad in (
        [],
        "a.txt",
        [3],
        [{"name": "../x", "content_base64": ""}],
        [{"name": "x", "content_base64": "not base64!"}],
        [{"name": "x", "content_base64": "", "path": "/etc/passwd"}],
    ):
        with pytest.raises(TabpilotError) as caught:
            read_uploads(bad, uploads)
        assert caught.value.code == "invalid_params", bad


def test_download_names_are_safe_and_never_overwrite(tmp_path: Path) -> None:
    assert safe_name("../../etc/passwd", "https://x.test/a", "") == "passwd"
    assert safe_name("", "https://x.test/files/q3%20report.pdf?x=1", "") == "q3 report.pdf"
    assert safe_name("", "https://x.test/", "image/png") == "download.png"
    assert safe_name(".bashrc", "https://x.test/", "") == "bashrc"
    first = save_download(tmp_path, "r.txt", b"one")
    second = save_download(tmp_path, "r.txt", b"two")
    assert (first.name, second.name) == ("r.txt", "r (2).txt")
    assert first.read_bytes() == b"one" and second.read_bytes() == b"two"


def _engine(make_engine: EngineFactory, uploads: Path, downloads: Path | None = None) -> Engine:
    return make_engine(config=EngineConfig(uploads_dir=uploads, downloads_dir=downloads))


async def test_the_prompt_names_each_file_and_no_bytes_are_kept(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals, folders: tuple[Path, Path, Path]
) -> None:
    uploads, _, _ = folders
    engine = _engine(make_engine, uploads)
    approvals.script = ["allow"]
    browser.replies["dom.upload"] = {"files": [{"name": "a.txt", "size": 10}], "changed": "no visible change"}
    events: list[Any] = []
    engine.activity.subscribe(events.append)
    content = base64.b64encode(b"secret bytes").decode()
    await engine.call(
        "interact",
        {"action": "upload", "selector": "#f", "files": ["a.txt", {"name": "n.txt", "content_base64": content}]},
    )
    (request,) = approvals.requests
    assert request.steps[0]["files"] == [str((uploads / "a.txt").resolve()), "n.txt (inline, 12 bytes)"]
    assert content not in repr(request.params) and "[12 bytes]" in repr(request.params)
    assert all(content not in repr(e.params) for e in events)
    (sent,) = [c for c in browser.calls if c.op == "dom.upload"]
    assert sent.params["files"][0] == {
        "name": "a.txt",
        "mime": "text/plain",
        "content_base64": base64.b64encode(b"in uploads").decode(),
    }


async def test_a_file_outside_is_refused_before_anyone_is_asked(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals, folders: tuple[Path, Path, Path]
) -> None:
    uploads, _, outside = folders
    engine = _engine(make_engine, uploads)
    with pytest.raises(TabpilotError) as caught:
        await engine.call("interact", {"action": "upload", "selector": "#f", "files": [str(outside / "secret.txt")]})
    assert caught.value.code == "invalid_params"
    assert approvals.requests == [] and "dom.upload" not in browser.ops


@pytest.mark.parametrize(
    ("args", "param"),
    [
        ({"action": "wait_for"}, "selector"),
        ({"action": "wait_for", "text": "a", "load": True}, "load"),
        ({"action": "wait_for", "state": "hidden", "text": "a"}, "state"),
        ({"action": "select", "selector": "s"}, "value"),
        ({"action": "select", "selector": "s", "value": "a", "text": "A"}, "text"),
        ({"action": "wait_for", "url": "**/done", "frame": "pay"}, "frame"),
        ({"action": "wait_for", "load": True, "frame": "pay"}, "frame"),
        ({"action": "download"}, "url"),
        ({"action": "download", "url": "https://x.test/", "selector": "img"}, "url"),
        ({"action": "click", "selector": "a", "modifiers": ["Ctrl"]}, "modifiers"),
        ({"action": "click", "selector": "a", "click_count": 4}, "click_count"),
    ],
)
async def test_exactly_one_condition_or_way(
    engine: Engine, approvals: FakeApprovals, args: dict[str, Any], param: str
) -> None:
    approvals.script = ["allow"]
    with pytest.raises(TabpilotError) as caught:
        await engine.call("interact", args)
    assert caught.value.code == "invalid_params"
    assert caught.value.details.get("param") == param, caught.value.message


async def test_a_download_is_saved_under_downloads(
    make_engine: EngineFactory, browser: FakeBrowser, tmp_path: Path
) -> None:
    engine = _engine(make_engine, tmp_path / "uploads", tmp_path / "downloads")
    browser.replies["page.download"] = {
        "url": "https://x.test/r.pdf",
        "mime": "application/pdf",
        "name": "../r.pdf",
        "size": 3,
        "content_base64": base64.b64encode(b"pdf").decode(),
    }
    saved = await engine.call("interact", {"action": "download", "url": "https://x.test/r.pdf"})
    assert saved == {
        "path": str(tmp_path / "downloads" / "r.pdf"),
        "size": 3,
        "mime": "application/pdf",
        "url": "https://x.test/r.pdf",
    }
    assert (tmp_path / "downloads" / "r.pdf").read_bytes() == b"pdf"


async def test_wait_for_and_download_take_the_frame_to_the_browser(
    make_engine: EngineFactory, browser: FakeBrowser, tmp_path: Path
) -> None:
    engine = _engine(make_engine, tmp_path / "uploads", tmp_path / "downloads")
    browser.replies["page.wait_for"] = {"condition": "text 'Paid'", "url": "https://x.test/", "waited_ms": 5}
    await engine.call("interact", {"action": "wait_for", "text": "Paid", "frame": "pay"})
    await engine.call("interact", {"action": "wait_for", "selector": "#receipt", "frame": "#cross"})
    browser.replies["page.download"] = {
        "url": "https://pay.test/r.txt",
        "mime": "text/plain",
        "name": "r.txt",
        "size": 1,
        "content_base64": base64.b64encode(b"r").decode(),
    }
    await engine.call("interact", {"action": "download", "selector": "#receipt-link", "frame": "pay"})
    waits = [c.params for c in browser.calls if c.op == "page.wait_for"]
    assert [(w.get("text"), w.get("selector"), w["frame"]) for w in waits] == [
        ("Paid", None, "pay"),
        (None, "#receipt", "#cross"),
    ]
    (download,) = [c.params for c in browser.calls if c.op == "page.download"]
    assert download["frame"] == "pay" and download["selector"] == "#receipt-link"
