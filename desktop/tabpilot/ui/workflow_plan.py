"""What a workflow prompt tells a person: every step in order, in words, with the values it will type
(`{{param}}` filled in; secrets stay `{{secret:NAME}}`), where each `navigate` goes, whether approving also
saves the workflow, and that the rows it reads go to the agent.

Pure (no Qt): the approval dialog renders a `Plan`. The steps come from the request itself (a new workflow)
or from the saved workflow a replay runs, with its params and overrides applied as the replay applies them.
Steps of a kind this module does not know (a later step kind, a pagination click) are listed as they are.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabpilot.engine.contract.placeholders import PLACEHOLDER
from tabpilot.engine.contract.steps import page_changing_kinds
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import ApprovalRequest
from tabpilot.engine.workflows.scrape import next_page_click
from tabpilot.engine.workflows.workflows import apply_overrides, check_params

IGNORED_FIELDS = frozenset({"type", "description", "timeout_ms"})
"""Fields that change nothing a person needs to judge (how long to wait, a note)."""


@dataclass(frozen=True)
class PlanStep:
    number: str
    """`3`, or `3.1` for a step inside an if_exists branch."""
    text: str
    changes_page: bool
    depth: int = 0


@dataclass(frozen=True)
class Plan:
    name: str
    """The workflow's name as people read it ("" when none was given)."""
    steps: list[PlanStep] = field(default_factory=list)
    saves: bool = False
    """Approving also records (saves) the workflow."""
    reads_rows: bool = False
    """It extracts rows, which go back to the agent."""
    starts_on_current_page: bool = False
    """A page-changing step comes before any navigate: it acts on whatever the tab shows now."""
    missing: list[str] = field(default_factory=list)
    """`{{param}}` names no value is given for (the run will refuse to start)."""
    secrets: list[str] = field(default_factory=list)


def is_workflow_request(request: ApprovalRequest) -> bool:
    return (request.tool, request.mode) == ("interact", "scrape") and request.params.get("operation") in (
        "workflow",
        "replay",
    )


def plan_for(request: ApprovalRequest, saved: Mapping[str, Any] | None = None) -> Plan | None:
    """The plan of a workflow request (`saved`: the document a replay runs), or None for anything else."""
    if not is_workflow_request(request):
        return None
    params = request.params
    if params.get("operation") == "replay":
        if saved is None:
            return _from_request_steps(request, name=str(params.get("workflow_id") or ""))
        doc = dict(saved)
        try:
            doc["params"] = {**_strings(doc.get("params")), **check_params(params.get("params"))}
            doc = apply_overrides(doc, params.get("override_params"))
        except TabpilotError:
            return _from_request_steps(request, name=str(doc.get("name") or params.get("workflow_id") or ""))
        steps, values, saves = doc.get("steps"), _strings(doc.get("params")), False
        name = str(doc.get("name") or params.get("workflow_id") or "")
    else:
        steps, values, saves = params.get("steps"), _strings(params.get("params")), bool(params.get("record"))
        name = str(params.get("name") or "").strip()
    if not isinstance(steps, list):
        return _from_request_steps(request, name=name)
    builder = _Builder(values)
    builder.add(steps, prefix="", depth=0)
    listed = [dict(s) for s in builder.walked]
    # An extract step's line already says it clicks through to the next pages: its pagination click is listed.
    listed += [next_page_click(s["paginate"]) for s in listed if s.get("type") == "extract" and _paginates(s)]
    # Steps the request holds that the workflow's list does not (the engine may add some, e.g. the clicks that
    # turn pages): approved too, so shown too.
    extras = [s for s in request.steps if dict(s) not in listed]
    if extras:
        builder.out.append(PlanStep("", "Also part of this approval:", False))
    for extra in extras:
        builder.extra(extra, number="•")
    return Plan(
        name=name,
        steps=builder.out,
        saves=saves,
        reads_rows=builder.reads_rows,
        starts_on_current_page=builder.changes_before_navigating,
        missing=sorted(builder.missing),
        secrets=sorted(builder.secrets),
    )


def _from_request_steps(request: ApprovalRequest, *, name: str) -> Plan:
    """What the request lists, when the whole workflow cannot be read (a replay of a file gone meanwhile)."""
    builder = _Builder({})
    for index, step in enumerate(request.steps, 1):
        builder.extra(step, number=str(index))
    # (its {{param}} values are not known here: none is said to be missing)
    return Plan(name=name, steps=builder.out, secrets=sorted(builder.secrets))


def _paginates(step: Mapping[str, Any]) -> bool:
    paginate = step.get("paginate")
    return isinstance(paginate, Mapping) and isinstance(paginate.get("next_selector"), str)


def _strings(value: Any) -> dict[str, str]:
    return {str(k): v for k, v in value.items() if isinstance(v, str)} if isinstance(value, Mapping) else {}


class _Builder:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = values
        self.out: list[PlanStep] = []
        self.walked: list[Mapping[str, Any]] = []
        self.reads_rows = False
        self.navigated = False
        self.changes_before_navigating = False
        self.missing: set[str] = set()
        self.secrets: set[str] = set()

    def add(self, steps: Sequence[Any], *, prefix: str, depth: int) -> None:
        for index, step in enumerate(steps, 1):
            number = f"{prefix}{index}"
            if not isinstance(step, Mapping):
                self.out.append(PlanStep(number, f"(not a step: {_json(step)})", False, depth))
                continue
            self.walked.append(step)
            kind = step.get("type")
            changes = kind in page_changing_kinds()
            if kind == "navigate":
                self.navigated = True
            elif changes and not self.navigated:
                self.changes_before_navigating = True
            if kind == "extract":
                self.reads_rows = True
            self.out.append(PlanStep(number, self.describe(step), changes, depth))
            if kind == "if_exists":
                for branch, label in (("then", "If it is:"), ("else", "If it is not:")):
                    nested = step.get(branch)
                    if isinstance(nested, list) and nested:
                        self.out.append(PlanStep("", label, False, depth + 1))
                        self.add(nested, prefix=f"{number}.", depth=depth + 1)

    def extra(self, step: Mapping[str, Any], *, number: str) -> None:
        """A step the approval covers, listed as the request gives it (an unknown kind counts as a change)."""
        kind = step.get("type")
        changes = kind in page_changing_kinds() or kind not in KNOWN
        self.out.append(PlanStep(number, self.describe(step), changes, 0))

    # -- words ----------------------------------------------------------------------------------

    def value(self, text: Any) -> str:
        """A value as it will be typed: params filled in, secrets as their reference, quoted."""
        if not isinstance(text, str):
            return _json(text)

        def fill(match: Any) -> str:
            secret, name = match.group(1), match.group(2)
            if secret:
                self.secrets.add(name)
                return str(match.group(0))
            if name in self.values:
                return self.values[name]
            self.missing.add(name)
            return str(match.group(0))

        return _json(PLACEHOLDER.sub(fill, text))

    def url(self, text: Any) -> str:
        return self.value(text)[1:-1] if isinstance(text, str) else _json(text)

    def describe(self, step: Mapping[str, Any]) -> str:
        kind = step.get("type")
        describe = KNOWN.get(kind) if isinstance(kind, str) else None
        if describe is None:
            return self.generic(step)
        text, used = describe(self, step)
        rest = [k for k in step if k not in used and k not in IGNORED_FIELDS]
        if rest:
            text += " (" + ", ".join(f"{k}: {self.value(step[k])}" for k in rest) + ")"
        return text

    def generic(self, step: Mapping[str, Any]) -> str:
        """A step kind without words here: its kind, then every field as given."""
        fields = "  ".join(f"{k}={self.value(v)}" for k, v in step.items() if k != "type")
        return f"{step.get('type', '?')}  {fields}".rstrip()


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _navigate(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    return f"Go to {b.url(s.get('url'))}", {"url", "wait_until"}


def _wait(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    state = s.get("state") or "visible"
    return f"Wait until {s.get('selector')} is {state}", {"selector", "state"}


def _click(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    return f"Click {s.get('selector')}", {"selector"}


def _fill(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    return f"Fill {s.get('selector')} with {b.value(s.get('value'))}", {"selector", "value"}


def _type(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    return f"Type {b.value(s.get('text'))} into {s.get('selector')}", {"selector", "text"}


def _press(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    where = f" in {s['selector']}" if s.get("selector") else ""
    return f"Press {s.get('key')}{where}", {"key", "selector"}


def _select(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    return f"Choose {b.value(s.get('value'))} in {s.get('selector')}", {"selector", "value"}


def _scroll(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    return (f"Scroll to {s['selector']}" if s.get("selector") else "Scroll the page"), {"selector"}


def _delay(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    ms = s.get("ms")
    return (f"Pause {ms / 1000:g} s" if isinstance(ms, int | float) else f"Pause {_json(ms)} ms"), {"ms"}


def _extract(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    schema = s.get("schema")
    fields = ", ".join(str(k) for k in schema) if isinstance(schema, Mapping) else _json(schema)
    text = f"Read rows from {s.get('selector')} ({fields}) for the agent"
    paginate = s.get("paginate")
    if isinstance(paginate, Mapping) and paginate.get("next_selector"):
        pages = paginate.get("max_pages")
        up_to = f", up to {pages} pages" if pages else ""
        text += f", clicking {paginate['next_selector']} for each next page{up_to}"
    elif paginate is not None:
        text += f"; pages: {_json(paginate)}"
    if s.get("wait_for"):
        text += f", once {s['wait_for']} is there"
    return text, {"selector", "schema", "paginate", "wait_for"}


def _if_exists(b: _Builder, s: Mapping[str, Any]) -> tuple[str, set[str]]:
    return f"Look whether {s.get('selector')} is on the page", {"selector", "then", "else"}


KNOWN: dict[str, Callable[[_Builder, Mapping[str, Any]], tuple[str, set[str]]]] = {
    "navigate": _navigate,
    "wait": _wait,
    "click": _click,
    "fill": _fill,
    "type": _type,
    "press": _press,
    "select": _select,
    "scroll": _scroll,
    "delay": _delay,
    "extract": _extract,
    "if_exists": _if_exists,
}
