"""observe snapshot's engine side: the byte budget, the diff against the agent's last snapshot of the tab,
and highlight's request; plus a workflow step in a frame as the Playwright exporter writes it."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.page.snapshot import Baseline, Baselines, cut_note, fit, unified
from tabpilot.engine.workflows.codegen import playwright_script
from tabpilot.engine.workflows.workflows import Workflow, refuse_refs
from tests.unit.fakes import FakeBrowser

PAGE = "\n".join(
    [
        '- heading "Orders" [level=1] @e1',
        "- table @e2:",
        *(f'  - row: {n} | Item {n} | link "open" @e{n + 2}' for n in range(1, 41)),
        '- button "Next" @e43',
    ]
)


def page(text: str, document: str = "doc-1", tab_id: int = 7) -> dict[str, Any]:
    return {"tab_id": tab_id, "url": "https://shop.test/orders", "title": "Orders", "document": document, "text": text}


# -- the budget ----------------------------------------------------------------------------------


def test_a_text_within_the_budget_is_whole() -> None:
    assert fit(PAGE, 100_000) == (PAGE, None)


def test_the_budget_cuts_between_lines_and_points_at_the_part_cut() -> None:
    shown, cut = fit(PAGE, 400)
    assert cut is not None
    assert len(shown.encode()) <= 400
    assert PAGE.startswith(shown + "\n")  # whole lines only, from the top
    assert cut.shown_lines + cut.hidden_lines == len(PAGE.split("\n"))
    assert cut.scope_hint == "@e2"  # the table the cut falls in
    note = cut_note(cut, 400)
    assert "max_bytes=400" in note and "scope:'@e2'" in note and f"{cut.hidden_lines} more" in note


def test_a_cut_at_the_top_level_suggests_the_first_ref_left_out() -> None:
    text = '- button "A" @e1\n- button "B" @e2\n- button "C" @e3'
    shown, cut = fit(text, 20)
    assert shown == '- button "A" @e1' and cut is not None and cut.scope_hint == "@e2"


def test_the_budget_counts_bytes_not_characters() -> None:
    text = "- text: " + "é" * 20 + "\n- text: b"
    shown, cut = fit(text, 30)
    assert shown == "" and cut is not None  # 48 bytes in the first line


# -- the diff ------------------------------------------------------------------------------------


def test_one_changed_line_gives_a_few_lines_of_diff() -> None:
    after = PAGE.replace("  - row: 20 | Item 20 |", "  - row: 20 | Item twenty |")
    body = unified(PAGE, after)
    lines = body.split("\n")
    assert lines[0].startswith("@@")
    assert [line[0] for line in lines[1:]] == [" ", "-", "+", " "]
    assert unified(PAGE, PAGE) == ""


async def test_diff_answers_only_the_changes_since_the_agents_last_snapshot(
    engine: Engine, browser: FakeBrowser
) -> None:
    browser.queue("dom.snapshot", page(PAGE), page(PAGE + "\n- text: Saved"), page(PAGE + "\n- text: Saved"))
    first = await engine.call("observe", {"what": "snapshot", "diff": True})
    assert first["diff"] == "full" and first["snapshot"] == PAGE
    second = await engine.call("observe", {"what": "snapshot", "diff": True})
    assert second["diff"] == "changes" and second["changed_lines"] == 1
    assert second["snapshot"].split("\n")[-1] == "+- text: Saved"
    third = await engine.call("observe", {"what": "snapshot", "diff": True})
    assert third["snapshot"] == "" and third["changed_lines"] == 0


async def test_each_agent_has_its_own_baseline_and_a_new_document_gives_all_of_it(
    engine: Engine, browser: FakeBrowser
) -> None:
    browser.queue("dom.snapshot", page(PAGE), page(PAGE), page(PAGE + "\n- text: x", document="doc-2"))
    await engine.call("observe", {"what": "snapshot"}, agent="alice")
    other = await engine.call("observe", {"what": "snapshot", "diff": True}, agent="bob")
    assert other["diff"] == "full"  # bob never looked at this tab
    moved = await engine.call("observe", {"what": "snapshot", "diff": True}, agent="alice")
    assert moved["diff"] == "full" and "new document" in moved["diff_note"]


def test_baselines_keep_the_newest() -> None:
    store = Baselines(limit=2)
    for n in range(3):
        store.swap(("a", n, None, None, False, None), Baseline("d", str(n)))
    assert [key[1] for key in store.items] == [1, 2]
    assert store.swap(("a", 2, None, None, False, None), Baseline("d", "new")) == Baseline("d", "2")


async def test_snapshot_sends_its_options_and_the_redaction_and_cuts_to_max_bytes(
    engine: Engine, browser: FakeBrowser
) -> None:
    browser.queue("dom.snapshot", page(PAGE))
    out = await engine.call(
        "observe",
        {
            "what": "snapshot",
            "scope": "#orders",
            "max_depth": 3,
            "interactive_only": True,
            "frame": "pay",
            "max_bytes": 500,
        },
    )
    sent = browser.calls[0].params
    assert sent["scope"] == "#orders" and sent["max_depth"] == 3 and sent["interactive_only"] is True
    assert sent["frame"] == "pay" and "input[type=password]" in sent["redact"]
    assert out["truncated"] is True and out["bytes"] <= 500 and "scope:'@e2'" in out["note"]


async def test_snapshot_works_with_the_pilot_off_and_highlight_does_not(make_engine: Any, browser: FakeBrowser) -> None:
    engine = make_engine(pilot_on=False)
    browser.queue("dom.snapshot", page(PAGE))
    assert (await engine.call("observe", {"what": "snapshot"}))["snapshot"] == PAGE
    with pytest.raises(TabpilotError) as refused:
        await engine.call("interact", {"action": "highlight", "selector": "@e43"})
    assert refused.value.code == "ai_web_pilot_disabled"


async def test_highlight_asks_for_no_approval_and_passes_its_duration(engine: Engine, browser: FakeBrowser) -> None:
    browser.queue(
        "dom.highlight",
        {
            "highlighted": True,
            "selector": "@e43",
            "bounds": {"x": 1, "y": 2, "width": 3, "height": 4},
            "duration_ms": 800,
            "role": "button",
            "name": "Save",
            "frame": "@f9",
        },
    )
    out = await engine.call("interact", {"action": "highlight", "selector": "@e43", "duration_ms": 800, "frame": "@e9"})
    assert out["bounds"] == {"x": 1, "y": 2, "width": 3, "height": 4}
    assert browser.calls[-1].params["duration_ms"] == 800 and browser.calls[-1].params["frame"] == "@e9"


# -- a step in a frame, exported -----------------------------------------------------------------


def test_the_playwright_export_runs_a_step_in_its_frame() -> None:
    workflow = Workflow(
        workflow_id="wf-1",
        name="pay",
        steps=[
            {"type": "click", "selector": "#pay", "frame": "pay"},
            {"type": "click", "selector": "#top"},
        ],
    )
    script = playwright_script(workflow)
    assert 'frame_of(page, "pay").locator("#pay").click()' in script
    assert 'page.locator("#top").click()' in script
    compile(script, "wf-1.py", "exec")


# -- refs do not go into recorded workflows ------------------------------------------------------


@pytest.mark.parametrize(
    "step",
    [
        {"type": "click", "selector": "@e5"},
        {"type": "click", "selector": "@f12e3"},
        {"type": "click", "selector": "card >> @e5"},
        {"type": "click", "selector": "#pay", "frame": "@e7"},
    ],
)
def test_a_recorded_workflow_refuses_snapshot_refs(step: dict[str, Any]) -> None:
    workflow = Workflow(workflow_id="wf-1", name="w", steps=[{"type": "navigate", "url": "https://a.test/"}, step])
    with pytest.raises(TabpilotError) as refused:
        refuse_refs(workflow)
    assert refused.value.code == "invalid_params" and "snapshot ref" in refused.value.message


def test_css_that_merely_contains_an_at_sign_is_not_a_ref() -> None:
    steps = [{"type": "click", "selector": 'a[href="mailto:x@e5.com"]'}, {"type": "click", "selector": "#e5"}]
    refuse_refs(Workflow(workflow_id="wf-1", name="w", steps=steps))
