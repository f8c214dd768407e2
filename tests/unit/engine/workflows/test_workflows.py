"""Workflow documents: step validation, placeholders, secrets, overrides, ids and origins (pure code)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.safety.sites import origin_of
from tabpilot.engine.workflows.workflows import (
    ErrorRecovery,
    Workflow,
    apply_overrides,
    check_error_recovery,
    check_paginate,
    check_params,
    check_steps,
    navigate_urls,
    new_workflow_id,
    parse_workflow,
    placeholders,
    resolve,
    scrub,
    slug,
)

EXTRACT = {"type": "extract", "selector": "tr", "schema": {"a": "td | text"}}


def refused(steps: Any) -> str:
    with pytest.raises(TabpilotError) as info:
        check_steps(steps)
    assert info.value.code == "invalid_params"
    return info.value.message


def bad_doc(doc: Any) -> TabpilotError:
    with pytest.raises(TabpilotError) as info:
        parse_workflow(doc)
    assert info.value.code == "invalid_params"
    return info.value


# -- steps ------------------------------------------------------------------------------------------

VALID_STEPS: list[dict[str, Any]] = [
    {"type": "navigate", "url": "https://a.test/"},
    {"type": "navigate", "url": "https://a.test/", "wait_until": "networkidle", "allow_redirect": True},
    {"type": "wait", "selector": ".x"},
    {"type": "wait", "selector": ".x", "state": "hidden", "timeout_ms": 300_000},
    {"type": "wait", "selector": ".x", "state": "attached", "description": "the list"},
    {"type": "click", "selector": "button"},
    {"type": "fill", "selector": "#q", "value": ""},
    {"type": "type", "selector": "#q", "text": "hello"},
    {"type": "press", "key": "Enter"},
    {"type": "press", "key": "Control+a", "selector": "#q"},
    {"type": "select", "selector": "select", "value": "b"},
    {"type": "scroll"},
    {"type": "scroll", "selector": "footer"},
    {"type": "delay", "ms": 0},
    {"type": "delay", "ms": 60_000},
    EXTRACT,
    {**EXTRACT, "wait_for": ".loaded", "paginate": {"next_selector": "a.next", "max_pages": 3, "delay_ms": 0}},
    {"type": "if_exists", "selector": ".cookie"},
    {"type": "if_exists", "selector": ".cookie", "then": [{"type": "click", "selector": ".ok"}], "else": []},
]


@pytest.mark.parametrize("step", VALID_STEPS, ids=lambda s: s["type"])
def test_every_step_type_accepts_its_fields(step: dict[str, Any]) -> None:
    (clean,) = check_steps([step])
    assert clean["type"] == step["type"]
    if step["type"] == "if_exists":
        assert clean["then"] == (step.get("then") or [])
        assert clean["else"] == []


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ({"type": "navigate"}, "steps[0] (navigate): 'url' is required."),
        ({"type": "navigate", "url": 5}, "steps[0] (navigate): 'url' must be a string"),
        (
            {"type": "navigate", "url": "https://a.test", "allow_redirect": "yes"},
            "'allow_redirect' must be a boolean",
        ),
        (
            {"type": "navigate", "url": "https://a.test", "wait_until": "idle"},
            "'wait_until' must be one of load, domcontentl",
        ),
        ({"type": "wait"}, "steps[0] (wait): 'selector' is required."),
        (
            {"type": "wait", "selector": ".x", "state": "gone"},
            "(wait): 'state' must be one of visible, attached, hidden",
        ),
        ({"type": "wait", "selector": ".x", "timeout_ms": 0}, "'timeout_ms' must be at least 1"),
        ({"type": "wait", "selector": ".x", "timeout_ms": 300_001}, "'timeout_ms' must be at most 300000"),
        ({"type": "wait", "selector": ".x", "timeout_ms": True}, "'timeout_ms' must be an integer"),
        ({"type": "wait", "selector": ".x", "timeout_ms": 1.5}, "'timeout_ms' must be an integer"),
        ({"type": "click"}, "steps[0] (click): 'selector' is required."),
        ({"type": "click", "selector": ["a"]}, "'selector' must be a string"),
        ({"type": "fill", "selector": "#q"}, "steps[0] (fill): 'value' is required."),
        ({"type": "fill", "selector": "#q", "value": 3}, "(fill): 'value' must be a string"),
        ({"type": "type", "selector": "#q"}, "steps[0] (type): 'text' is required."),
        ({"type": "press"}, "steps[0] (press): 'key' is required."),
        ({"type": "select", "value": "s"}, "steps[0] (select): 'selector' is required."),
        ({"type": "scroll", "selector": 1}, "(scroll): 'selector' must be a string"),
        ({"type": "delay"}, "steps[0] (delay): 'ms' is required."),
        ({"type": "delay", "ms": "10"}, "(delay): 'ms' must be an integer"),
        ({"type": "delay", "ms": -1}, "(delay): 'ms' must be at least 0"),
        ({"type": "delay", "ms": 60_001}, "(delay): 'ms' must be at most 60000"),
        ({"type": "extract", "selector": "tr"}, "steps[0] (extract): 'schema' is required."),
        ({"type": "extract", "schema": {"a": "td"}}, "steps[0] (extract): 'selector' is required."),
        ({**EXTRACT, "schema": "td | text"}, "(extract): 'schema' must be an object"),
        ({**EXTRACT, "schema": {"a": "td | cents"}}, "steps[0] (extract) schema: field 'a': unknown operation"),
        ({**EXTRACT, "paginate": []}, "(extract): 'paginate' must be an object"),
        ({**EXTRACT, "paginate": {"max_pages": 2}}, "steps[0] (extract) paginate: 'next_selector' is required."),
        ({"type": "if_exists"}, "steps[0] (if_exists): 'selector' is required."),
        ({"type": "if_exists", "selector": ".x", "then": {}}, "(if_exists): 'then' must be an array"),
        ({"type": "if_exists", "selector": ".x", "else": [{"type": "fly"}]}, "steps[0].else[0]: unknown step type"),
    ],
)
def test_step_field_errors_are_precise(step: dict[str, Any], message: str) -> None:
    assert message in refused([step])


def test_unknown_step_types_and_fields() -> None:
    assert refused([{"type": "levitate", "selector": "a"}]).startswith("steps[0]: unknown step type 'levitate'; one of")
    assert "unknown step type null" in refused([{"selector": "a"}])  # JSON's word, not Python's None
    message = refused([{"type": "click", "selector": "a", "trusted": False, "force": True}])
    assert message.startswith("steps[0] (click): unknown parameter 'force', 'trusted'. Valid parameters: selector*")
    assert "steps[1] must be an object with a 'type'" in refused([{"type": "scroll"}, "click"])
    assert refused({"type": "scroll"}) == "steps must be a list of step objects."


def test_null_fields_count_as_absent() -> None:
    (wait,) = check_steps([{"type": "wait", "selector": ".x", "timeout_ms": None, "state": None}])
    assert wait == {"type": "wait", "selector": ".x"}
    assert "'selector' is required" in refused([{"type": "click", "selector": None}])


def test_errors_name_the_nested_step() -> None:
    steps = [
        {"type": "scroll"},
        {"type": "if_exists", "selector": ".a", "then": [{"type": "scroll"}, {"type": "click"}]},
    ]
    assert refused(steps).startswith("steps[1].then[1] (click): 'selector' is required.")


def nested(depth: int) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [{"type": "scroll"}]
    for _ in range(depth):
        steps = [{"type": "if_exists", "selector": ".x", "then": steps}]
    return steps


def test_nesting_depth() -> None:
    assert len(check_steps(nested(4))) == 1  # four if_exists inside one another
    message = refused(nested(5))
    assert message == "steps[0].then[0].then[0].then[0].then[0].then: if_exists may nest at most 4 deep."


@pytest.mark.parametrize(
    ("paginate", "message"),
    [
        ("a.next", "must be an object with next_selector"),
        ({"next_selector": "  "}, "'next_selector' is required"),
        ({"next_selector": "a", "pages": 2}, "unknown field 'pages'"),
        ({"next_selector": "a", "max_pages": 0}, "'max_pages' must be a whole number from 1 to 100"),
        ({"next_selector": "a", "max_pages": 101}, "'max_pages' must be a whole number from 1 to 100"),
        ({"next_selector": "a", "max_pages": True}, "'max_pages' must be a whole number"),
        ({"next_selector": "a", "delay_ms": -1}, "'delay_ms' must be a whole number from 0 to 60000"),
        ({"next_selector": "a", "timeout_ms": 99}, "'timeout_ms' must be a whole number from 100 to 120000"),
    ],
)
def test_paginate_validation(paginate: Any, message: str) -> None:
    with pytest.raises(TabpilotError) as info:
        check_paginate(paginate)
    assert message in info.value.message
    assert info.value.details["param"] == "paginate"


def test_paginate_accepts_limits() -> None:
    full = {"next_selector": "a", "max_pages": 100, "delay_ms": 0, "timeout_ms": 120_000}
    assert check_paginate(full) == full


def test_error_recovery() -> None:
    assert check_error_recovery(None) == ErrorRecovery("retry_step", 2, "abort_with_partial")
    assert check_error_recovery({"on_timeout": None, "max_retries": None}) == ErrorRecovery()
    assert check_error_recovery({"on_timeout": "skip", "max_retries": 0, "on_failure": "continue"}) == ErrorRecovery(
        "skip", 0, "continue"
    )
    assert check_error_recovery({"on_failure": "abort"}).as_dict() == {
        "on_timeout": "retry_step",
        "max_retries": 2,
        "on_failure": "abort",
    }
    for value, message in [
        ([], "'error_recovery' must be an object."),
        ({"on_timeout": "ignore"}, "on_timeout must be one of retry_step, skip, abort"),
        ({"on_failure": "retry"}, "on_failure must be one of abort_with_partial, abort, continue"),
        ({"max_retries": 11}, "max_retries must be a whole number from 0 to 10"),
        ({"max_retries": -1}, "max_retries must be a whole number"),
        ({"max_retries": False}, "max_retries must be a whole number"),
        ({"retries": 1}, "unknown field 'retries'"),
    ]:
        with pytest.raises(TabpilotError) as info:
            check_error_recovery(value)
        assert message in info.value.message
        assert info.value.details["param"] == "error_recovery"


def test_params() -> None:
    assert check_params(None) == {}
    assert check_params({"board": "PROJ", "page": 2, "ratio": 0.5}) == {"board": "PROJ", "page": "2", "ratio": "0.5"}
    for value in ([], {"a": True}, {"a": None}, {"a": {"b": 1}}, {"a": [1]}):
        with pytest.raises(TabpilotError) as info:
            check_params(value)
        assert info.value.details["param"] == "params"


# -- documents --------------------------------------------------------------------------------------


def test_a_hand_written_document_needs_only_id_name_steps() -> None:
    workflow = parse_workflow({"workflow_id": "wf-x-1", "name": " x ", "steps": [{"type": "scroll"}]})
    assert workflow == Workflow("wf-x-1", "x", [{"type": "scroll"}])
    assert workflow.document() == {
        "workflow_id": "wf-x-1",
        "name": "x",
        "origin": "",
        "created_at": "",
        "steps": [{"type": "scroll"}],
        "error_recovery": {"on_timeout": "retry_step", "max_retries": 2, "on_failure": "abort_with_partial"},
        "params": {},
    }
    assert parse_workflow(workflow.document()) == workflow


def test_document_errors() -> None:
    assert bad_doc([]).message == "workflow must be a JSON object."
    assert "unknown field 'author'" in bad_doc({"workflow_id": "a", "name": "a", "steps": [], "author": "me"}).message
    for wid in (None, "", "../etc", "a b", "-a", "x" * 121, 5):
        assert bad_doc({"workflow_id": wid, "name": "a", "steps": [{"type": "scroll"}]}).details["param"] == (
            "workflow_id"
        )
    assert bad_doc({"workflow_id": "a", "name": "  ", "steps": [{"type": "scroll"}]}).details["param"] == "name"
    assert "needs at least one step" in bad_doc({"workflow_id": "a", "name": "a", "steps": []}).message
    assert "'steps' " not in bad_doc({"workflow_id": "a", "name": "a"}).message
    assert bad_doc({"workflow_id": "a", "name": "a", "steps": [{"type": "scroll"}], "origin": 3}).details == {
        "param": "origin"
    }


def test_at_most_50_steps_counting_nested_ones() -> None:
    base = {"workflow_id": "wf-a", "name": "a"}
    assert parse_workflow({**base, "steps": [{"type": "scroll"}] * 50}).step_count() == 50
    assert "51 steps; a workflow may have at most 50" in bad_doc({**base, "steps": [{"type": "scroll"}] * 51}).message
    branchy = [
        {"type": "if_exists", "selector": ".x", "then": [{"type": "scroll"}] * 20, "else": [{"type": "scroll"}] * 5}
    ]
    steps = branchy * 2  # 2 + 2 * 25 = 52
    assert "52 steps" in bad_doc({**base, "steps": steps}).message


def test_mutating_steps_walk_branches() -> None:
    workflow = parse_workflow(
        {
            "workflow_id": "wf-a",
            "name": "a",
            "steps": [
                {"type": "navigate", "url": "https://a.test/"},
                {"type": "click", "selector": "#one"},
                {"type": "scroll"},
                {"type": "if_exists", "selector": ".x", "then": [{"type": "fill", "selector": "#q", "value": "v"}]},
            ],
        }
    )
    assert [s["selector"] for s in workflow.mutating_steps()] == ["#one", "#q"]
    assert navigate_urls(workflow.steps) == ["https://a.test/"]


# -- placeholders, secrets -------------------------------------------------------------------------

STEPS = [
    {"type": "navigate", "url": "https://{{host}}/boards/{{ board }}"},
    {"type": "fill", "selector": "#user", "value": "{{secret:user}}"},
    {"type": "fill", "selector": "#pw", "value": "{{secret:pw}}"},
    {"type": "if_exists", "selector": ".x", "then": [{"type": "type", "selector": "#q", "text": "q={{query}}"}]},
    {"type": "extract", "selector": "tr", "schema": {"a": "td | text"}},
]


def test_placeholders_finds_params_and_secrets_everywhere() -> None:
    assert placeholders(STEPS) == ({"host", "board", "query"}, {"user", "pw"})
    assert placeholders([{"type": "scroll"}]) == (set(), set())


def test_resolve_fills_params_and_secrets() -> None:
    asked: list[str] = []

    def secret(name: str) -> str | None:
        asked.append(name)
        return {"user": "alice", "pw": "hunter2"}.get(name)

    steps, secrets = resolve(STEPS, {"host": "a.test", "board": "P1", "query": "x", "unused": "y"}, secret)
    assert steps[0]["url"] == "https://a.test/boards/P1"
    assert steps[1]["value"] == "alice"
    assert steps[2]["value"] == "hunter2"
    assert steps[3]["then"][0]["text"] == "q=x"
    assert steps[4] == STEPS[4]
    assert secrets == {"user": "alice", "pw": "hunter2"}
    assert sorted(asked) == ["pw", "user"]
    assert STEPS[1]["value"] == "{{secret:user}}"  # the original is untouched


def test_resolve_lists_every_missing_param() -> None:
    with pytest.raises(TabpilotError) as info:
        resolve(STEPS, {"board": "P1"}, lambda n: "s")
    error = info.value
    assert error.code == "invalid_params"
    assert error.details["missing"] == ["host", "query"]
    assert "host, query" in error.message
    assert '"params.host"' in error.message


def test_resolve_names_a_missing_secret() -> None:
    with pytest.raises(TabpilotError) as info:
        resolve(STEPS, {"host": "a", "board": "b", "query": "c"}, lambda n: None if n == "pw" else "v")
    assert info.value.code == "invalid_params"
    assert info.value.details["secret"] == "pw"
    assert "no secret named 'pw'" in info.value.message and "tabpilot secret set" in info.value.message


def test_scrub_replaces_secret_values_longest_first() -> None:
    secrets = {"short": "abc", "long": "abcdef", "empty": ""}
    value = {
        "data": [{"a": "xx abcdef yy abc"}, "abc"],
        "n": 3,
        "message": "typed abcdefabc",
        "none": None,
    }
    assert scrub(value, secrets) == {
        "data": [{"a": "xx {{secret:long}} yy {{secret:short}}"}, "{{secret:short}}"],
        "n": 3,
        "message": "typed {{secret:long}}{{secret:short}}",
        "none": None,
    }
    assert scrub(value, {}) is value


# -- overrides ---------------------------------------------------------------------------------------

DOC: dict[str, Any] = {
    "workflow_id": "wf-a",
    "name": "a",
    "steps": [
        {"type": "navigate", "url": "https://a.test/1"},
        {"type": "click", "selector": "#go"},
        {"type": "if_exists", "selector": ".x", "then": [{"type": "click", "selector": ".old"}], "else": []},
    ],
    "params": {"board": "P1"},
}


def override_error(overrides: Any) -> str:
    with pytest.raises(TabpilotError) as info:
        apply_overrides(DOC, overrides)
    assert info.value.details["param"] == "override_params"
    return info.value.message


def test_overrides_steps_nested_steps_and_params() -> None:
    out = apply_overrides(
        DOC,
        {
            "steps[0].url": "https://a.test/2",
            "steps[2].then[0].selector": ".new",
            "params.board": "P2",
            "params.extra": "e",
            "name": "renamed",
            "steps[1].timeout_ms": 500,
        },
    )
    assert out["steps"][0]["url"] == "https://a.test/2"
    assert out["steps"][2]["then"][0]["selector"] == ".new"
    assert out["steps"][1] == {"type": "click", "selector": "#go", "timeout_ms": 500}
    assert out["params"] == {"board": "P2", "extra": "e"}
    assert out["name"] == "renamed"
    assert DOC["steps"][0]["url"] == "https://a.test/1"  # a copy
    assert DOC["params"] == {"board": "P1"}
    assert apply_overrides(DOC, None) is DOC
    assert apply_overrides(DOC, {}) == DOC
    assert apply_overrides({"steps": []}, {"params.x": "1"})["params"] == {"x": "1"}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"steps[0].type": "click"}, "'steps[0].type' cannot be changed"),
        ({"steps[2].then[0].type": "fill"}, "cannot be changed"),
        ({"workflow_id": "wf-b"}, "'workflow_id' cannot be changed"),
        ({"steps[3].url": "x"}, "'steps[3].url' names a step that does not exist"),
        ({"steps[2].then[1].selector": "x"}, "names a step that does not exist"),
        ({"steps[0][0]": "x"}, "names a step that does not exist"),
        ({"stepz[0].url": "x"}, "'stepz[0].url' names nothing in the workflow"),
        ({"steps.url": "x"}, "names nothing in the workflow"),
        ({"steps[0].url.host": "x"}, "names nothing in the workflow"),
        ({"steps[-1].url": "x"}, "cannot read the path 'steps[-1].url'"),
        ({"steps[0]..url": "x"}, "cannot read the path"),
        ({"": "x"}, "keys are paths like"),
    ],
)
def test_override_errors(overrides: dict[str, Any], message: str) -> None:
    assert message in override_error(overrides)


def test_overrides_must_be_an_object() -> None:
    assert "must be an object of paths to values" in override_error(["steps[0].url"])


def test_an_override_that_breaks_the_workflow_is_caught_by_parse() -> None:
    with pytest.raises(TabpilotError) as info:
        parse_workflow(apply_overrides(DOC, {"steps[1].selector": 5}))
    assert "steps[1] (click): 'selector' must be a string" in info.value.message


# -- ids and origins ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("export_jira_sprint_data", "export_jira_sprint_data"),
        ("Export Jira / sprint!", "Export_Jira_sprint"),
        ("  --weird--  ", "weird"),
        ("données", "donn_es"),
        ("", "workflow"),
        ("!!!", "workflow"),
        ("x" * 80, "x" * 60),
    ],
)
def test_slug(name: str, expected: str) -> None:
    assert slug(name) == expected


def test_new_workflow_ids_are_unique_per_day() -> None:
    day = date(2026, 1, 28)
    taken: set[str] = set()
    for _ in range(3):
        taken.add(new_workflow_id("export jira", day, taken.__contains__))
    assert taken == {"wf-export_jira-20260128", "wf-export_jira-20260128-2", "wf-export_jira-20260128-3"}
    assert new_workflow_id("export jira", date(2026, 1, 29), taken.__contains__) == "wf-export_jira-20260129"
    assert parse_workflow(
        {"workflow_id": "wf-" + "x" * 60 + "-20260128-99", "name": "x", "steps": [{"type": "scroll"}]}
    )


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://jira.company.com/boards/PROJ?x=1#y", "https://jira.company.com"),
        ("http://127.0.0.1:8123/a", "http://127.0.0.1:8123"),
        ("https://Jira.Company.COM/", "https://jira.company.com"),
        ("https://user:pw@a.test/x", "https://a.test"),
        ("about:blank", ""),
        ("file:///etc/passwd", ""),
        ("/relative", ""),
        ("", ""),
    ],
)
def test_origin_of(url: str, origin: str) -> None:
    assert origin_of(url) == origin
