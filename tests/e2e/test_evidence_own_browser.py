"""Print and evidence in the person's own browser: Chromium started as a plain program with the unpacked
extension, paired through the popup (tests/support/plain_chromium.py), no Playwright near its pages. A PDF,
an MHTML archive, a HAR and the page's timings come through the extension's chrome.debugger and
executeScript alone, with the pilot off (they are reads). Headless, and with a window too (on the display
there is, else an Xvfb of its own), since headful Chrome once refused to print through DevTools."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from tests.conftest import AppFactory
from tests.e2e.test_dialogs_own_browser import pair, tab_showing
from tests.gui.xserver import x_server
from tests.support.plain_chromium import PlainChromium, Popup
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e]


@pytest.fixture
def display(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[bool]:
    """The test's `headless` parameter; a windowed browser gets an X display: the one there is, else an
    Xvfb of its own (as on CI, which has none), so it is never skipped."""
    headless = bool(request.param)
    if headless or os.environ.get("DISPLAY"):
        yield headless
        return
    with x_server() as x:
        monkeypatch.setenv("DISPLAY", x.display)
        yield headless


@pytest.mark.parametrize("display", [True, False], ids=["headless", "headful"], indirect=True)
async def test_pdf_archive_har_and_timings_in_your_own_browser(
    make_app: AppFactory, tmp_path: Path, display: bool
) -> None:
    headless = display
    site = FixtureSite()
    await site.start()
    app = await make_app(browser="none", pilot=False)
    chrome = PlainChromium(tmp_path / "my-chrome", headless=headless)
    try:
        await chrome.start()
        await pair(app, await chrome.popup())
        url = site.url("/print.html")
        await chrome.open_tab(url)
        tab_id = await until(lambda: tab_showing(app, url), timeout=10, what="the person's tab")

        printed = await app.engine.call("generate", {"type": "pdf", "tab_id": tab_id, "page_numbers": True})
        reader = PdfReader(io.BytesIO(Path(printed["path"]).read_bytes()))
        assert printed["pages"] == len(reader.pages) == 3
        assert "Third page marker CHARLIE" in reader.pages[2].extract_text()

        evidence = site.url("/evidence.html")
        evidence_target = await chrome.open_tab(evidence)
        tab_id = await until(lambda: tab_showing(app, evidence), timeout=10, what="the evidence tab")

        async def loaded() -> dict[str, Any] | None:
            perf = await app.engine.call("observe", {"what": "performance", "tab_id": tab_id})
            return perf if perf["navigation"]["load_ms"] and perf["resources"]["by_type"].get("fetch") else None

        perf = await until(loaded, what="the page's load and its calls")
        assert perf["url"] == evidence and perf["navigation"]["ttfb_ms"] > 0
        # A tab opened behind another may not have painted yet: its paints are then null, never made up.
        fcp = perf["paint"]["first_contentful_paint_ms"]
        assert fcp is None or fcp > 0

        archived = await app.engine.call("generate", {"type": "archive", "tab_id": tab_id})
        assert archived["resources"] >= 2 and "Evidence fixture" in Path(archived["path"]).read_text(encoding="utf-8")

        async def har_with_calls() -> dict[str, Any] | None:
            answer = await app.engine.call("generate", {"type": "har", "tab_id": tab_id, "url_filter": "evidence"})
            return answer if int(answer["entries"]) >= 5 else None  # the document, css, image, two calls

        await until(har_with_calls, what="the page's requests in a HAR")

        # A request the page makes (the person, in DevTools' console) is in a read asked right after it.
        attached = await chrome.send("Target.attachToTarget", {"targetId": evidence_target, "flatten": True})
        console = Popup(chrome, str(attached["sessionId"]))
        await console.js("fetch('/api/json?tag=own-now').then((r) => r.text())")
        found = await app.engine.call("observe", {"what": "network", "tab_id": tab_id, "url_filter": "tag=own-now"})
        assert [e["status"] for e in found["entries"]] == [200]
    finally:
        await chrome.close()
        await site.stop()
