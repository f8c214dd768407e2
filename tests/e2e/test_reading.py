"""The reading helpers of `observe` through MCP into the real extension: visible text without hidden
text, HTML and forms without password values, links resolved, Markdown of the main content, JSON-LD
parsed, media, styles with their matched rules, and one read on every tab. The pilot stays off."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

HIDDEN = ("DISPLAYNONE", "VISHIDDEN", "OPACITYZERO", "HIDDENATTR", "CLASSHIDDEN", "SRONLY")
SECRETS = ("ATTR-PASSWORD-1", "TYPED-PASSWORD-2", "CSRF-TOKEN-VALUE", "SENSITIVE-4111", "CARD-4242")


async def show(app: App, tab: Any, site: FixtureSite, path: str) -> str:
    url = site.url(path)
    await tab.goto(url)

    async def targeted() -> bool:
        return (await app.link.request("tabs.resolve", {}, timeout_s=5))["url"] == url

    await until(targeted, timeout=5, what=f"commands to go to the tab showing {path}")
    return url


def no_secrets(result: dict[str, Any]) -> None:
    dumped = json.dumps(result)
    for secret in SECRETS:
        assert secret not in dumped, secret


async def test_text_is_what_a_person_sees(mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await show(e2e_app, tab, site, "/reading.html")
    read = await mcp.ok("observe", {"what": "text"})
    text = read["text"]
    assert read["title"] == "Reading Fixture"
    assert "Visible paragraph with a relative link and bold words." in text.splitlines()
    assert "Name\tPrice" in text
    assert "Account number: [REDACTED] is redacted." in text
    for word in HIDDEN:
        assert word not in text, word
    no_secrets(read)
    scoped = await mcp.ok("observe", {"what": "text", "selector": "#prices"})
    assert scoped["text"].splitlines() == ["Name\tPrice", "Tea\t3"]
    missing = await mcp.error("observe", {"what": "text", "selector": "#nope"})
    assert missing["error"] == "element_not_found"


async def test_a_long_read_is_cut_with_a_note(mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await show(e2e_app, tab, site, "/reading.html")
    read = await mcp.ok("observe", {"what": "html", "max_bytes": 1000})
    assert read["truncated"] is True
    assert len(read["html"].encode()) <= 1000
    assert "selector" in read["note"] and "max_bytes" in read["note"]


async def test_html_and_forms_never_carry_password_values(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/reading.html")
    html = await mcp.ok("observe", {"what": "html"})
    assert "<h1>Reading helpers</h1>" in html["html"]
    assert 'value="[REDACTED]"' in html["html"]
    no_secrets(html)
    forms = await mcp.ok("observe", {"what": "forms"})
    no_secrets(forms)
    signup = forms["forms"][0]
    assert signup["id"] == "signup" and signup["method"] == "get"
    assert signup["action"] == site.url("/submitted")
    by_name = {f["name"]: f for f in signup["fields"]}
    assert by_name["email"]["label"] == "Email address"
    assert by_name["email"]["value"] == "ada@example.com"
    assert by_name["email"]["required"] is True
    assert by_name["pw"]["type"] == "password" and by_name["pw"]["value"] == "[REDACTED]"
    assert by_name["pw"]["label"].startswith("Password")
    assert by_name["csrf_token"]["value"] == "[REDACTED]"
    assert by_name["page"]["value"] == "signup"
    assert by_name["plan"]["value"] == "pro"
    assert [o["text"] for o in by_name["plan"]["options"]] == ["Free plan", "Pro plan"]
    assert by_name["terms"]["checked"] is True and by_name["terms"]["label"] == "I agree"
    assert by_name["bio"]["label"] == "About you" and by_name["bio"]["value"] == "Hello there"
    assert by_name["card"]["value"] == "[REDACTED]"
    assert by_name["email"]["selector"] == "#email"
    loose = forms["forms"][-1]
    assert loose["outside_forms"] is True
    assert loose["fields"][0]["label"] == "Search the site"


async def test_links_are_resolved(mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await show(e2e_app, tab, site, "/reading.html")
    read = await mcp.ok("observe", {"what": "links"})
    links = {link["text"]: link for link in read["links"]}
    assert links["a relative link"]["href"] == "second.html"
    assert links["a relative link"]["url"] == site.url("/second.html")
    assert links["Elsewhere"]["url"] == "https://example.org/x?y=1"
    assert read["count"] == 4


async def test_markdown_is_the_main_content(mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await show(e2e_app, tab, site, "/reading.html")
    read = await mcp.ok("observe", {"what": "markdown"})
    md = read["markdown"]
    assert read["source"] == "#content"
    assert "# Reading helpers" in md
    assert f"Visible paragraph with [a relative link]({site.url('/second.html')}) and **bold words**." in md
    assert "- First item" in md and "  1. Nested one" in md
    assert "```\ncode line 1\ncode line 2\n```" in md
    assert "| Name | Price |" in md and "| Tea | 3 |" in md
    assert f"![A pixel]({site.url('/pixel.png')})" in md
    assert "Footer text" not in md and "Home" not in md
    for word in HIDDEN:
        assert word not in md, word
    no_secrets(read)


async def test_structured_data_parses_json_ld_and_meta(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/reading.html")
    read = await mcp.ok("observe", {"what": "structured_data"})
    assert read["json_ld"] == [
        {
            "@context": "https://schema.org",
            "@type": "Article",
            "headline": "Ld Headline",
            "author": {"@type": "Person", "name": "Ada"},
        }
    ]
    assert len(read["json_ld_errors"]) == 1
    assert read["open_graph"] == {"title": "Reading OG Title", "type": "article"}
    assert read["twitter"] == {"card": "summary"}
    assert read["meta"]["description"] == "A page for the reading helpers."
    assert read["links"]["canonical"] == site.url("/canonical-reading")
    assert read["lang"] == "en"


async def test_media_and_styles(mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await show(e2e_app, tab, site, "/reading.html")
    media = await mcp.ok("observe", {"what": "media"})
    [img] = media["images"]
    assert img["src"] == site.url("/pixel.png") and img["alt"] == "A pixel"
    assert (img["width"], img["height"]) == (20, 10)
    assert media["video"][0]["poster"] == site.url("/poster.png")
    assert media["video"][0]["src"] == site.url("/clip.mp4")
    assert media["audio"][0]["src"] == site.url("/sound.mp3")
    styles = await mcp.ok("observe", {"what": "styles", "selector": "#styled"})
    assert styles["computed"]["color"] == "rgb(10, 20, 30)"
    assert styles["computed"]["font-weight"] == "700"
    selectors = [r["selector"] for r in styles["matched_rules"]]
    assert selectors == ["#styled", "#styled", "p.lead"]
    assert styles["matched_rules"][1]["media"] == "(min-width: 1px)"
    assert styles["inline"] == "margin: 3px"
    picked = await mcp.ok("observe", {"what": "styles", "selector": "#styled", "properties": ["padding-top"]})
    assert picked["computed"] == {"padding-top": "7px"}
    needs = await mcp.error("observe", {"what": "styles"})
    assert needs["error"] == "invalid_params"


async def test_across_tabs_reads_every_tab(mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await show(e2e_app, tab, site, "/reading.html")
    assert e2e_app.managed is not None
    other = await e2e_app.managed.context.new_page()
    try:
        await other.goto(site.url("/second.html"))
        read = await mcp.ok("observe", {"what": "across_tabs", "read": "text"})
        by_url = {row["url"]: row for row in read["tabs"]}
        assert "You navigated here." in by_url[site.url("/second.html")]["text"]
        assert "Reading helpers" in by_url[site.url("/reading.html")]["text"]
        assert read["count"] == len(read["tabs"])
        headings = await mcp.ok("observe", {"what": "across_tabs", "read": "text", "selector": "h1"})
        rows = {row["url"]: row for row in headings["tabs"]}
        assert rows[site.url("/second.html")]["text"] == "Second"
        # A tab where the selector matches nothing answers its error; the others still answer.
        fixture = [r for r in rows.values() if "error" in r]
        assert all(r["error"] == "element_not_found" for r in fixture)
    finally:
        await other.close()
