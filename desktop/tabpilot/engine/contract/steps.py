"""Workflow step kinds, from the command definitions: a step of kind X *is* the `interact` action X.

Every interact action whose definition says `step=True` is a step kind, with the action's own
parameters and limits (plus what only a step has: navigate's `allow_redirect`); which actions those are
is said once, in their definitions, and `observe {what:"help", mode:"steps"}` lists them. A few kinds
exist only inside a workflow — `WORKFLOW_ONLY` below — and are defined here, in the same form. Validation
(workflows.check_steps), the runner's dispatch, the code generator's, the approval of page-changing
steps and the help all read this one table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from tabpilot.engine.contract.params import Param

DESCRIPTION = Param("description", "string", "what the step is for, in words (shown in prompts and scripts)")
STEP_TIMEOUT = Param("timeout_ms", "integer", "default 10000", default=10_000, minimum=1, maximum=300_000)
"""Waiting and extraction steps (not interact actions) keep the limits they always had."""
WAIT_STATES = ("visible", "attached", "hidden")

Check = Callable[[dict[str, Any], str], None]
"""Checks a step's values beyond their types (an extraction schema, pagination); raises invalid_params."""


@dataclass(frozen=True)
class StepKind:
    kind: str
    summary: str
    params: tuple[Param, ...]
    """What a step of this kind may hold besides `type` (description included)."""
    changes_page: bool = False
    """Needs approval: the page-changing interact actions (an element action of the contract)."""
    action: bool = False
    """The interact action of the same name runs it."""
    check: Check | None = None


def _check_extract(step: dict[str, Any], where: str) -> None:
    from tabpilot.engine.workflows.extract_spec import parse_schema
    from tabpilot.engine.workflows.workflows import check_paginate

    parse_schema(step["schema"], f"{where} schema")
    if step.get("paginate") is not None:
        check_paginate(step["paginate"], f"{where} paginate")


WORKFLOW_ONLY: tuple[StepKind, ...] = (
    StepKind(
        "wait",
        "until an element is visible, attached or hidden",
        (
            Param("selector", "string", "CSS selector", required=True),
            Param("state", "string", "default visible", default="visible", enum=WAIT_STATES),
            STEP_TIMEOUT,
            DESCRIPTION,
        ),
    ),
    StepKind(
        "delay",
        "a pause",
        (Param("ms", "integer", "milliseconds (≤60000)", required=True, minimum=0, maximum=60_000), DESCRIPTION),
    ),
    StepKind(
        "extract",
        "rows into the run's data (as scrape extract)",
        (
            Param("selector", "string", "CSS selector of the rows", required=True),
            Param("schema", "object", "{field:'css | text|html|attr:N|number|boolean'} or JSON Schema", required=True),
            Param("paginate", "object", "{next_selector, max_pages, delay_ms, timeout_ms}"),
            Param("wait_for", "string", "CSS selector to wait for first"),
            STEP_TIMEOUT,
            DESCRIPTION,
        ),
        check=_check_extract,
    ),
    StepKind(
        "if_exists",
        "then-steps when the selector matches, else-steps otherwise",
        (
            Param("selector", "string", "CSS selector", required=True),
            Param("then", "array", "steps"),
            Param("else", "array", "steps"),
            DESCRIPTION,
        ),
    ),
)


@cache
def step_kinds() -> dict[str, StepKind]:
    """Every step kind: the interact actions that are steps, then the workflow-only kinds."""
    from tabpilot.engine.catalog import build_registry

    kinds: dict[str, StepKind] = {}
    for command in build_registry().modes("interact"):
        if command.step:
            params = tuple(p for p in command.params if p.name != "tab_id") + command.step_params + (DESCRIPTION,)
            kinds[command.mode] = StepKind(
                command.mode, command.summary, params, changes_page=command.kind == "mutate", action=True
            )
    for kind in WORKFLOW_ONLY:
        if kind.kind in kinds:
            raise ValueError(f"step kind {kind.kind} is an interact action already")
        kinds[kind.kind] = kind
    return kinds


@cache
def page_changing_kinds() -> frozenset[str]:
    """Step kinds that change a page: what a workflow's approval lists, element actions all."""
    return frozenset(k.kind for k in step_kinds().values() if k.changes_page)
