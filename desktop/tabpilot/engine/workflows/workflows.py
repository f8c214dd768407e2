"""Workflow documents: validation, `{{param}}` and `{{secret:NAME}}` placeholders, replay overrides.

A workflow file holds `{workflow_id, name, origin, created_at, steps, error_recovery, params}`;
a hand-written one needs only `workflow_id`, `name` and `steps`. Everything here is pure.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from tabpilot.engine.contract.params import validate
from tabpilot.engine.contract.placeholders import PLACEHOLDER
from tabpilot.engine.contract.steps import page_changing_kinds, step_kinds
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.safety import scrubbing

MAX_STEPS = 50
MAX_FILE_BYTES = 2 * 1024 * 1024
"""A workflow file larger than this is listed with an error, so no larger one is ever saved."""
MAX_DEPTH = 4
ON_TIMEOUT = ("retry_step", "skip", "abort")
ON_FAILURE = ("abort_with_partial", "abort", "continue")
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,119}$")
REDACTED = "[REDACTED]"


@dataclass(frozen=True)
class ErrorRecovery:
    on_timeout: str = "retry_step"
    max_retries: int = 2
    on_failure: str = "abort_with_partial"

    def as_dict(self) -> dict[str, Any]:
        return {"on_timeout": self.on_timeout, "max_retries": self.max_retries, "on_failure": self.on_failure}


@dataclass
class Workflow:
    workflow_id: str
    name: str
    steps: list[dict[str, Any]]
    error_recovery: ErrorRecovery = field(default_factory=ErrorRecovery)
    params: dict[str, str] = field(default_factory=dict)
    origin: str = ""
    created_at: str = ""

    def document(self) -> dict[str, Any]:
        """What goes into `workflows/<id>.json`."""
        return {
            "workflow_id": self.workflow_id,
            "name": self.name,
            "origin": self.origin,
            "created_at": self.created_at,
            "steps": self.steps,
            "error_recovery": self.error_recovery.as_dict(),
            "params": self.params,
        }

    def mutating_steps(self) -> list[dict[str, Any]]:
        changing = page_changing_kinds()
        return [s for s in walk_steps(self.steps) if s["type"] in changing]

    def step_count(self) -> int:
        return sum(1 for _ in walk_steps(self.steps))


def walk_steps(steps: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for step in steps:
        yield step
        if step.get("type") == "if_exists":
            yield from walk_steps(step.get("then") or [])
            yield from walk_steps(step.get("else") or [])


# -- validation -------------------------------------------------------------------------------------


def _bad(message: str, param: str = "steps") -> TabpilotError:
    return TabpilotError("invalid_params", message, param=param)


def check_steps(steps: Any, where: str = "steps", depth: int = 0) -> list[dict[str, Any]]:
    if not isinstance(steps, list):
        raise _bad(f"{where} must be a list of step objects.")
    if depth > MAX_DEPTH:
        raise _bad(f"{where}: if_exists may nest at most {MAX_DEPTH} deep.")
    out = []
    for i, step in enumerate(steps):
        here = f"{where}[{i}]"
        if not isinstance(step, dict):
            raise _bad(f"{here} must be an object with a 'type'.")
        step = {k: v for k, v in step.items() if v is not None}  # JSON null: the field is not given
        kind = step.get("type")
        kinds = step_kinds()
        if not isinstance(kind, str) or kind not in kinds:  # a list or an object cannot be looked up
            raise _bad(f"{here}: unknown step type {shown(kind)}; one of {', '.join(kinds)}.")
        definition = kinds[kind]
        fields = {k: v for k, v in step.items() if k != "type"}
        try:
            validate(definition.params, fields, f"{here} ({kind})")
        except TabpilotError as exc:
            exc.details["param"] = "steps"
            raise
        if definition.check is not None:
            definition.check(step, f"{here} ({kind})")
        if kind == "navigate":
            _check_navigate(step, here)
        clean = dict(step)
        if kind == "if_exists":
            clean["then"] = check_steps(step.get("then") or [], f"{here}.then", depth + 1)
            clean["else"] = check_steps(step.get("else") or [], f"{here}.else", depth + 1)
        out.append(clean)
    return out


NAVIGABLE_SCHEMES = ("http", "https")
_SCHEME = re.compile(r"\s*([A-Za-z][A-Za-z0-9+.-]*):")


def check_url(url: str) -> str:
    url = url.strip()
    if url == "about:blank":
        return url
    parts = urlsplit(url)
    if parts.scheme not in NAVIGABLE_SCHEMES or not parts.netloc:
        raise TabpilotError(
            "invalid_params",
            f"'url' must be an absolute http(s) URL (or about:blank); got {shown(url)}.",
            param="url",
        )
    return url


def _check_navigate(step: dict[str, Any], where: str) -> None:
    """A navigate step's address, as far as the file tells it: a whole URL is checked as the call would check
    it; one built from {{params}} has its scheme checked when the scheme is written out (`javascript:{{x}}`),
    and the rest once filled in, just before the run."""
    url = str(step.get("url", ""))
    written = url.split("{{", 1)[0]
    try:
        if written == url:
            check_url(url)
            return
        scheme = _SCHEME.match(written)
        if scheme and scheme.group(1).lower() not in NAVIGABLE_SCHEMES:
            check_url(written)
    except TabpilotError as exc:
        raise _bad(f"{where}: {exc.message}") from None


def check_paginate(paginate: Any, where: str = "paginate") -> dict[str, Any]:
    if not isinstance(paginate, dict):
        raise _bad(f"{where} must be an object with next_selector.", "paginate")
    unknown = sorted(set(paginate) - {"next_selector", "max_pages", "delay_ms", "timeout_ms"})
    if unknown:
        raise _bad(f"{where}: unknown field {_names(unknown)}.", "paginate")
    if not isinstance(paginate.get("next_selector"), str) or not paginate["next_selector"].strip():
        raise _bad(f"{where}: 'next_selector' is required.", "paginate")
    for name, low, high in (("max_pages", 1, 100), ("delay_ms", 0, 60_000), ("timeout_ms", 100, 120_000)):
        value = paginate.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high):
            raise _bad(f"{where}: '{name}' must be a whole number from {low} to {high}.", "paginate")
    return paginate


def check_error_recovery(value: Any) -> ErrorRecovery:
    if value is None:
        return ErrorRecovery()
    if not isinstance(value, dict):
        raise _bad("'error_recovery' must be an object.", "error_recovery")
    value = {k: v for k, v in value.items() if v is not None}  # JSON null: not given
    unknown = sorted(set(value) - {"on_timeout", "max_retries", "on_failure"})
    if unknown:
        raise _bad(f"error_recovery: unknown field {_names(unknown)}.", "error_recovery")
    on_timeout = value.get("on_timeout", "retry_step")
    on_failure = value.get("on_failure", "abort_with_partial")
    retries = value.get("max_retries", 2)
    if on_timeout not in ON_TIMEOUT:
        raise _bad(f"error_recovery.on_timeout must be one of {', '.join(ON_TIMEOUT)}.", "error_recovery")
    if on_failure not in ON_FAILURE:
        raise _bad(f"error_recovery.on_failure must be one of {', '.join(ON_FAILURE)}.", "error_recovery")
    if not isinstance(retries, int) or isinstance(retries, bool) or not 0 <= retries <= 10:
        raise _bad("error_recovery.max_retries must be a whole number from 0 to 10.", "error_recovery")
    return ErrorRecovery(on_timeout, retries, on_failure)


def check_params(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise _bad("'params' must be an object of names to values.", "params")
    out = {}
    for key, item in value.items():
        if not isinstance(item, str | int | float) or isinstance(item, bool):
            raise _bad(f"params.{key[:40]} must be a string or a number.", "params")
        out[key] = str(item)
    return out


def parse_workflow(doc: Any, *, where: str = "workflow") -> Workflow:
    """A workflow document (a file, an import, or a request) checked from top to bottom."""
    if not isinstance(doc, dict):
        raise _bad(f"{where} must be a JSON object.", "workflow")
    unknown = sorted(set(doc) - {"workflow_id", "name", "origin", "created_at", "steps", "error_recovery", "params"})
    if unknown:
        raise _bad(f"{where}: unknown field {_names(unknown)}.", "workflow")
    workflow_id, name = doc.get("workflow_id"), doc.get("name")
    if not isinstance(workflow_id, str) or not ID_PATTERN.match(workflow_id):
        raise _bad(
            f"{where}: 'workflow_id' must be letters, digits, '-', '_' or '.', at most 120, the first a letter "
            f"or digit (got {shown(workflow_id)}).",
            "workflow_id",
        )
    if not isinstance(name, str) or not name.strip():
        raise _bad(f"{where}: 'name' is required.", "name")
    steps = check_steps(doc.get("steps"))
    if not steps:
        raise _bad(f"{where}: a workflow needs at least one step.")
    count = sum(1 for _ in walk_steps(steps))
    if count > MAX_STEPS:
        raise _bad(f"{where}: {count} steps; a workflow may have at most {MAX_STEPS}.")
    origin = doc.get("origin") or ""
    if not isinstance(origin, str):
        raise _bad(f"{where}: 'origin' must be a string.", "origin")
    created = doc.get("created_at") or ""
    return Workflow(
        workflow_id=workflow_id,
        name=name.strip(),
        steps=steps,
        error_recovery=check_error_recovery(doc.get("error_recovery")),
        params=check_params(doc.get("params")),
        origin=origin,
        created_at=created if isinstance(created, str) else "",
    )


def _names(names: list[str]) -> str:
    listed = ", ".join(shown(n, 40) for n in names[:5])
    return listed + (f" and {len(names) - 5} more" if len(names) > 5 else "")


# -- secrets kept out of files -------------------------------------------------------------------


def refuse_literal_secrets(workflow: Workflow) -> None:
    """A recorded file must not hold a password typed in clear: ask for {{secret:NAME}} instead."""
    for step in walk_steps(workflow.steps):
        if step["type"] in ("fill", "type"):
            value = str(step.get("value", step.get("text", "")))
            if value and "password" in step["selector"].lower() and "{{" not in value:
                raise TabpilotError(
                    "invalid_params",
                    f"The step filling '{step['selector']}' holds a password in clear; recorded workflows must "
                    "say {{secret:NAME}} (the user stores NAME in the tray's Secrets window).",
                    param="steps",
                )


SNAPSHOT_REF = re.compile(r"(^|>>\s*)@(f\d+)?e\d+\b")
"""A snapshot's ref (`@e5`, `@f12e3`) in a selector or frame: good only in the document that gave it."""


def refuse_refs(workflow: Workflow) -> None:
    """A recorded file is replayed in later documents, where a snapshot's refs mean nothing: ask for CSS."""
    for step in walk_steps(workflow.steps):
        for key in ("selector", "frame"):
            value = step.get(key)
            if isinstance(value, str) and SNAPSHOT_REF.search(value.strip()):
                raise TabpilotError(
                    "invalid_params",
                    f"The {step['type']} step's {key} {shown(value)} is a snapshot ref, which holds only in the page "
                    "that gave it; a recorded workflow needs a CSS selector (observe dom shows one for a ref).",
                    param="steps",
                )


# -- ids, origins ----------------------------------------------------------------------------------


def slug(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "_", name.strip()).strip("_-")
    return (cleaned or "workflow")[:60]


def new_workflow_id(name: str, today: date, exists: Callable[[str], bool]) -> str:
    base = f"wf-{slug(name)}-{today:%Y%m%d}"
    candidate, n = base, 1
    while exists(candidate):
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def navigate_urls(steps: list[dict[str, Any]]) -> list[str]:
    return [s["url"] for s in walk_steps(steps) if s["type"] == "navigate"]


# -- placeholders and overrides ------------------------------------------------------------------


def placeholders(steps: list[dict[str, Any]]) -> tuple[set[str], set[str]]:
    """(param names, secret names) the steps refer to."""
    params: set[str] = set()
    secrets: set[str] = set()
    for text in _strings(steps):
        for is_secret, name in PLACEHOLDER.findall(text):
            (secrets if is_secret else params).add(name)
    return params, secrets


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def resolve(
    steps: list[dict[str, Any]], params: dict[str, str], secret: Callable[[str], str | None]
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Steps with every placeholder filled in, and the secret values used (to scrub them from output)."""
    wanted_params, wanted_secrets = placeholders(steps)
    missing = sorted(wanted_params - set(params))
    if missing:
        raise TabpilotError(
            "invalid_params",
            f"The workflow needs values for {', '.join(missing)}: pass them in params "
            f'(or override_params {{"params.{missing[0]}": ...}} on replay).',
            param="params",
            missing=missing,
        )
    secrets: dict[str, str] = {}
    for name in sorted(wanted_secrets):
        value = secret(name)
        if value is None:
            raise TabpilotError(
                "invalid_params",
                f"Tabpilot has no secret named '{name}'; the user can add it in the tray's Secrets window "
                "or with `tabpilot secret set NAME`.",
                param="steps",
                secret=name,
            )
        secrets[name] = value

    def fill(match: re.Match[str]) -> str:
        is_secret, name = match.group(1), match.group(2)
        return secrets[name] if is_secret else params[name]

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return PLACEHOLDER.sub(fill, value)
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(steps), secrets


def scrub(value: Any, secrets: dict[str, str]) -> Any:
    """Replace every secret value that shows up in results or messages by its reference — as typed, and
    as a page would echo it (URL-encoded, in JSON, HTML-escaped, base64)."""
    return scrubbing.scrub(value, secrets)


_PATH = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)")


def apply_overrides(doc: dict[str, Any], overrides: Any) -> dict[str, Any]:
    """`{"steps[0].url": "...", "params.NAME": "..."}` applied to a copy of a workflow document."""
    if overrides is None:
        return doc
    if not isinstance(overrides, dict):
        raise _bad("'override_params' must be an object of paths to values.", "override_params")
    out = copy.deepcopy(doc)
    for path, value in overrides.items():
        if not isinstance(path, str) or not path:
            raise _bad('override_params keys are paths like "steps[0].url" or "params.NAME".', "override_params")
        if path.startswith("params."):
            out.setdefault("params", {})[path[len("params.") :]] = value
            continue
        target: Any = out
        segments = path.split(".")
        for n, segment in enumerate(segments):
            match = _PATH.fullmatch(segment)
            if match is None:
                raise _bad(f"override_params: cannot read the path {shown(path)}.", "override_params")
            key, indexes = match.group(1), [int(i) for i in re.findall(r"\[(\d+)\]", match.group(2))]
            last = n == len(segments) - 1
            if not isinstance(target, dict) or (key not in target and not (last and not indexes)):
                raise _bad(f"override_params: {shown(path)} names nothing in the workflow.", "override_params")
            if last and not indexes:
                if key in ("type", "workflow_id"):
                    raise _bad(f"override_params: {shown(path)} cannot be changed.", "override_params")
                target[key] = value
                break
            target = target[key]
            for i, index in enumerate(indexes):
                if not isinstance(target, list) or index >= len(target):
                    raise _bad(f"override_params: {shown(path)} names a step that does not exist.", "override_params")
                if last and i == len(indexes) - 1:
                    target[index] = value
                    break
                target = target[index]
    return out
