"""Print and evidence end to end, over MCP into the real extension in Chromium: `generate pdf` (page count,
text, paper sizes, page numbers, ranges), `generate archive` (an MHTML file that opens offline with its
image and stylesheet), `generate har` (a HAR a HAR parser reads, listing the page's requests) and
`observe performance` (timings a page that just loaded can give)."""

from __future__ import annotations

import io
import json
import unicodedata
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from haralyzer import HarParser
from pypdf import PdfReader

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.support.har_schema import validate_har
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

POINTS_PER_INCH = 72


async def show(app: App, tab: Any, site: FixtureSite, path: str) -> None:
    """Load `path` in the test's tab and wait until the extension's commands go to that tab."""
    url = site.url(path)
    await tab.goto(url)

    async def targeted() -> bool:
        return bool((await app.link.request("tabs.resolve", {}, timeout_s=5))["url"] == url)

    await until(targeted, timeout=10, what=f"commands to go to the tab showing {path}")


def artifacts(app: App) -> Path:
    folder = app.engine.config.artifacts_dir
    assert folder is not None
    return folder.resolve()


async def pdf(mcp: StdioMcp, app: App, **args: Any) -> tuple[dict[str, Any], PdfReader]:
    answer = await mcp.ok("generate", {"type": "pdf", **args})
    path = Path(answer["path"])
    assert path.parent == artifacts(app) and path.suffix == ".pdf"
    data = path.read_bytes()
    assert answer["size_bytes"] == len(data) and data.startswith(b"%PDF")
    reader = PdfReader(io.BytesIO(data))
    assert answer["pages"] == len(reader.pages), "the answer's page count is the file's"
    return answer, reader


def text(reader: PdfReader, page: int) -> str:
    """A page's text as a person reads it (PDF fonts write "fi" as one ligature glyph)."""
    return unicodedata.normalize("NFKC", reader.pages[page].extract_text())


def paper_is(reader: PdfReader, width_in: float, height_in: float) -> bool:
    """Every page's size, in inches (Chrome rounds the paper to whole points)."""
    return all(
        abs(float(page.mediabox.width) / POINTS_PER_INCH - width_in) < 0.02
        and abs(float(page.mediabox.height) / POINTS_PER_INCH - height_in) < 0.02
        for page in reader.pages
    )


# -- generate pdf --------------------------------------------------------------------------------


async def test_a_three_page_page_prints_as_three_pages_with_its_text(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/print.html")
    answer, reader = await pdf(mcp, e2e_app, path="fixture-print")
    assert answer["pages"] == 3 and answer["path"].endswith("fixture-print.pdf")
    texts = [text(reader, n) for n in range(3)]
    assert "First page marker ALPHA" in texts[0] and "Second page marker BRAVO" in texts[1]
    assert "Third page marker CHARLIE" in texts[2] and "Printed only" in texts[2], "print styles apply"
    assert (answer["width_in"], answer["height_in"]) == (8.27, 11.7) and paper_is(reader, 8.27, 11.7)


async def test_format_landscape_and_custom_sizes_change_the_paper(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/print.html")
    letter, reader = await pdf(mcp, e2e_app, format="letter")
    assert paper_is(reader, 8.5, 11) and (letter["width_in"], letter["height_in"]) == (8.5, 11)
    turned, reader = await pdf(mcp, e2e_app, format="A4", landscape=True)
    assert paper_is(reader, 11.7, 8.27) and turned["pages"] == 3 and turned["width_in"] == 11.7
    custom, reader = await pdf(
        mcp, e2e_app, paper_width="100mm", paper_height="150mm", margin={"top": "5mm", "bottom": 0}
    )
    assert paper_is(reader, 100 / 25.4, 150 / 25.4) and custom["pages"] == 3
    assert "Third page marker CHARLIE" in text(reader, 2)


async def test_page_numbers_headers_and_page_ranges(mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await show(e2e_app, tab, site, "/print.html")
    _, reader = await pdf(mcp, e2e_app, page_numbers=True)
    assert [text(reader, n).strip().splitlines()[-1] for n in range(3)] == ["1 / 3", "2 / 3", "3 / 3"]
    _, reader = await pdf(
        mcp, e2e_app, header_template='<div style="font-size:10px">Quarterly <span class="title"></span></div>'
    )
    assert all("Quarterly Print fixture" in text(reader, n) for n in range(3))
    ranged, reader = await pdf(mcp, e2e_app, page_ranges="2-3")
    assert ranged["pages"] == 2 and "BRAVO" in text(reader, 0)


async def test_print_background_prints_the_pages_colours(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/print.html")
    blue = b"0 0 1 rg"  # the band's background as a PDF fill colour

    def drawing(reader: PdfReader) -> bytes:
        contents = reader.pages[0].get_contents()
        assert contents is not None
        return bytes(contents.get_data())

    _, plain = await pdf(mcp, e2e_app)
    _, coloured = await pdf(mcp, e2e_app, print_background=True)
    assert blue not in drawing(plain) and blue in drawing(coloured)


async def test_bad_pdf_arguments_are_refused_with_the_parameter_named(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/print.html")
    before = set(artifacts(e2e_app).glob("*")) if artifacts(e2e_app).exists() else set()
    cases = [
        ({"format": "B7"}, "format"),
        ({"paper_width": "10cm"}, "paper_height"),
        ({"paper_width": "10 furlongs", "paper_height": "1in"}, "paper_width"),
        ({"margin": {"middle": "1cm"}}, "margin"),
        ({"page_ranges": "two"}, "page_ranges"),
        ({"page_ranges": "7-9"}, "page_ranges"),
        ({"path": "../outside.pdf"}, "path"),
    ]
    for args, param in cases:
        error = await mcp.error("generate", {"type": "pdf", **args})
        assert error["error"] == "invalid_params", (args, error)
        assert param in error["message"], (args, error)
    assert (set(artifacts(e2e_app).glob("*")) if artifacts(e2e_app).exists() else set()) == before


# -- generate archive ----------------------------------------------------------------------------


async def test_an_archive_opens_offline_with_its_image_and_stylesheet(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/evidence.html")
    await until(lambda: tab.evaluate("document.getElementById('logo').complete"), what="the logo to load")
    answer = await mcp.ok("generate", {"type": "archive", "path": "evidence"})
    path = Path(answer["path"])
    assert path.parent == artifacts(e2e_app) and path.name == "evidence.mhtml"
    assert answer["size_bytes"] == path.stat().st_size and answer["url"] == site.url("/evidence.html")
    assert answer["resources"] >= 2, answer  # the image and the stylesheet at least

    assert e2e_app.managed is not None
    offline = await e2e_app.managed.context.new_page()
    reached: list[str] = []

    async def no_network(route: Any) -> None:
        reached.append(route.request.url)
        await route.abort()

    try:
        await offline.route("http://**/*", no_network)  # nothing may come from the fixture site now
        served = len(site.requests)
        await offline.goto(path.as_uri())
        assert await offline.title() == "Evidence fixture"
        logo = await until(
            lambda: offline.evaluate(
                "(() => { const i = document.querySelector('#logo'); return i.complete && i.naturalWidth > 0 && "
                "{width: i.naturalWidth, border: getComputedStyle(i).borderTopColor}; })()"
            ),
            what="the archived image to show",
        )
        assert logo == {"width": 1, "border": "rgb(200, 0, 0)"}, "image and stylesheet come from the archive"
        assert reached == [] and len(site.requests) == served
    finally:
        await offline.close()


# -- generate har --------------------------------------------------------------------------------


@pytest_asyncio.fixture(loop_scope="session")
async def evidence(e2e_app: App, tab: Any, site: FixtureSite) -> AsyncIterator[Any]:
    """The evidence page in the test's tab, its two API calls done."""
    await show(e2e_app, tab, site, "/evidence.html")
    await until(lambda: tab.evaluate("window.done"), timeout=10, what="the page's API calls")
    yield tab


async def har_of(mcp: StdioMcp, e2e_app: App, **args: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    answer = await mcp.ok("generate", {"type": "har", **args})
    path = Path(answer["path"])
    assert path.parent == artifacts(e2e_app) and path.suffix == ".har"
    assert answer["size_bytes"] == path.stat().st_size
    har: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    validate_har(har)
    return answer, har


async def test_a_har_of_the_page_parses_and_lists_its_requests(
    mcp: StdioMcp, e2e_app: App, evidence: Any, site: FixtureSite
) -> None:
    def requested(har: dict[str, Any]) -> set[str]:
        return {f"{e['request']['method']} {e['request']['url']}" for e in har["log"]["entries"]}

    expected = {
        f"GET {site.url('/evidence.html')}",
        f"GET {site.url('/evidence.css')}",
        f"GET {site.url('/pixel.png?from=evidence')}",
        f"GET {site.url('/api/json?tag=evidence')}",
        f"POST {site.url('/api/echo-body?tag=evidence')}",
    }

    async def captured() -> bool:
        found = await mcp.ok("observe", {"what": "network", "url_filter": "evidence"})
        return len(found["entries"]) >= 4  # the stylesheet, the image, both calls (the document is not captured)

    await until(captured, what="the page's requests in the capture")
    answer, har = await har_of(mcp, e2e_app, path="evidence.har")
    assert requested(har) >= expected
    parsed = HarParser(har)
    assert parsed.har_data["version"] == "1.2" and parsed.creator["name"] == "Tabpilot"
    (page,) = parsed.pages
    assert page.title == "Evidence fixture" and page.page_id == "page_1"
    assert answer["entries"] == len(har["log"]["entries"]) == len(page.entries)
    by_url = {e.url: e for e in page.entries}
    document = by_url[site.url("/evidence.html")]
    assert document.status == 200 and har["log"]["entries"][0]["_resourceType"] == "document"
    api = by_url[site.url("/api/json?tag=evidence")]
    assert (api.request.method, api.status, api.response.mimeType) == ("GET", 200, "application/json; charset=utf-8")
    assert {q["name"]: q["value"] for q in api.raw_entry["request"]["queryString"]} == {"tag": "evidence"}
    assert by_url[site.url("/pixel.png?from=evidence")].raw_entry["_resourceType"] == "image"
    assert page.pageTimings["onLoad"] > 0 and page.pageTimings["onContentLoad"] > 0
    assert answer["bodies_captured"] is False and answer["bodies"] == 0
    assert "text" not in api.raw_entry["response"]["content"], "no body while the person has bodies off"

    only_api, filtered = await har_of(mcp, e2e_app, url_filter="/api/")
    assert requested(filtered) == {r for r in expected if "/api/" in r} and only_api["entries"] == 2
    assert filtered["log"]["pages"][0]["title"] == "Evidence fixture"


async def test_with_bodies_on_the_har_holds_the_bodies(
    mcp: StdioMcp, e2e_app: App, evidence: Any, site: FixtureSite
) -> None:
    e2e_app.engine.pilot.set_capability("capture_network_bodies", True)
    try:
        # The page learns of the toggle a moment later: calls made from then on carry their bodies.
        made = iter(range(1000))

        async def calls_with_bodies() -> str | None:
            tag = f"bodies{next(made)}"
            await evidence.evaluate(f"runCalls('{tag}')")
            found = await mcp.ok("observe", {"what": "network_bodies", "url_filter": f"tag={tag}"})
            return tag if len(found["entries"]) == 2 else None

        tag = await until(calls_with_bodies, what="the page's calls with their bodies")
        answer, har = await har_of(mcp, e2e_app, url_filter=f"tag={tag}")
        assert answer["entries"] == answer["bodies"] == 2
        by_method = {e["request"]["method"]: e for e in har["log"]["entries"]}
        got = json.loads(by_method["GET"]["response"]["content"]["text"])
        assert got == {"user": "alice", "items": [1, 2, 3], "tag": tag}
        post = by_method["POST"]["request"]
        assert post["postData"] == {"mimeType": "application/json", "text": '{"name":"Alice"}'}
        assert {"name": "content-type", "value": "application/json"} in post["headers"]
        assert answer["bodies_captured"] is True
        HarParser(har)  # still a HAR a parser reads
    finally:
        e2e_app.engine.pilot.set_capability("capture_network_bodies", False)


# -- observe performance -------------------------------------------------------------------------


async def test_performance_of_a_loaded_page_with_the_pilot_off(
    mcp: StdioMcp, e2e_app: App, evidence: Any, site: FixtureSite
) -> None:
    async def loaded() -> dict[str, Any] | None:
        perf = await mcp.ok("observe", {"what": "performance"})
        vitals = perf["web_vitals"]
        return perf if perf["navigation"]["load_ms"] and vitals["lcp_ms"] and vitals["cls"] > 0 else None

    perf = await until(loaded, what="the load event, a largest contentful paint and the banner's shift")
    assert perf["web_vitals"]["inp_ms"] is None, "no interaction yet"
    assert perf["url"] == site.url("/evidence.html") and perf["title"] == "Evidence fixture"
    nav = perf["navigation"]
    assert nav["type"] == "navigate" and nav["status"] == 200
    assert 0 < nav["ttfb_ms"] <= nav["dom_content_loaded_ms"] <= nav["load_ms"] < 30_000
    assert nav["decoded_body_size"] == len((Path(__file__).parents[1] / "fixtures/site/evidence.html").read_bytes())
    paint = perf["paint"]
    assert (
        0 < paint["first_contentful_paint_ms"] < 30_000
        and paint["first_paint_ms"] <= paint["first_contentful_paint_ms"]
    )
    vitals = perf["web_vitals"]
    assert vitals["lcp_ms"] >= paint["first_contentful_paint_ms"] and 0 < vitals["cls"] < 1
    resources = perf["resources"]
    assert resources["by_type"]["img"]["count"] >= 1 and resources["by_type"]["link"]["count"] == 1
    assert resources["by_type"]["fetch"]["count"] == 2 and resources["count"] >= 4
    assert abs(perf["time_origin"] - await evidence.evaluate("Math.round(performance.timeOrigin)")) <= 1


async def test_a_slow_click_shows_as_the_pages_interaction_to_next_paint(mcp: StdioMcp, evidence: Any) -> None:
    await evidence.click("#slow")  # a trusted click (CDP input), as a person's
    await until(
        lambda: evidence.evaluate("document.getElementById('slow').textContent === 'clicked'"), what="the click"
    )

    async def interacted() -> dict[str, Any] | None:
        vitals = (await mcp.ok("observe", {"what": "performance"}))["web_vitals"]
        return vitals if vitals["inp_ms"] else None

    vitals = await until(interacted, what="the slow interaction in the page's timeline")
    assert 150 <= vitals["inp_ms"] < 5_000 and vitals["fid_ms"] is not None


async def test_an_archive_keeps_no_password_of_the_page(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/sensitive.html")
    await tab.fill("tr.acct:nth-child(1) input[type=password]", "filled-by-person")
    answer = await mcp.ok("generate", {"type": "archive"})
    written = Path(answer["path"]).read_text(encoding="utf-8")
    assert "Accounts" in written
    assert "typed-secret" not in written and "filled-by-person" not in written, "typed values are not saved"
    assert "hunter2" not in written and "swordfish" not in written, "password values in the markup are emptied"
    assert e2e_app.managed is not None
    reopened = await e2e_app.managed.context.new_page()
    try:
        await reopened.goto(Path(answer["path"]).as_uri())
        rows = await reopened.evaluate(
            "[...document.querySelectorAll('tr.acct')].map((r) => [r.querySelector('.plain').textContent, "
            "r.querySelector('input[type=password]').value])"
        )
        assert rows == [["public info", ""], ["more public info", ""]], "the emptied archive still opens whole"
    finally:
        await reopened.close()
