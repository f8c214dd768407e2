"""The small Protocols through which the engine meets the world. Tests drive the engine with fakes."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from tabpilot.engine.workflows.workflows import Workflow


class BrowserPort(Protocol):
    """The link to the extension: one request, one reply, correlated by the adapter."""

    @property
    def connected(self) -> bool: ...

    def info(self) -> dict[str, Any]:
        """What is known of the connected browser and extension (empty when not connected)."""
        ...

    async def request(self, op: str, params: Mapping[str, Any], *, timeout_s: float) -> dict[str, Any]:
        """Run `op` in the extension. Raises TabpilotError (extension_not_connected, timeout, ...)."""
        ...


ApprovalAnswer = Literal["allow", "deny"]
DecidedBy = Literal["person", "rule", "auto", "policy"]
"""Who answered an approval: a person (a prompt, the terminal), a standing rule, `serve --approve auto`, or
the policy when nobody could be asked (`serve --approve deny`)."""
ActionClass = Literal["element", "javascript", "state", "emulation", "network", "workflows"]
"""What a standing rule may cover: element actions (click, fill, type, press, select and pagination
clicks), running JavaScript, or saving/deleting workflows (never covered by a site rule)."""


@dataclass(frozen=True)
class ApprovalDecision:
    """A human's (or a rule's) answer. `remember` turns an allow into a standing rule."""

    allow: bool
    remember: Literal["site", "workflow"] | None = None
    minutes: int | None = None
    """How long an allow for a site lasts."""
    rule_id: str | None = None
    """Set when a standing rule answered instead of a person."""
    decided_by: DecidedBy = "person"


@dataclass(frozen=True)
class ApprovalRequest:
    correlation_id: str
    agent: str
    """The name the agent's client gave for itself: anyone can claim any name (show it as reported)."""
    tool: str
    mode: str
    params: Mapping[str, Any]
    """Already redacted: secrets appear as {{secret:NAME}}, never their values."""
    tab_url: str | None = None
    steps: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)
    """For a workflow: every step that changes a page, shown at once."""
    origin: str = ""
    """The site the action changes (the target tab's origin, or the workflow's)."""
    tab_id: int | None = None
    selector: str | None = None
    """The element acted on, for a picture of it in the prompt."""
    workflow_id: str = ""
    steps_hash: str = ""
    """A hash of the workflow's steps: an 'always allow' rule binds to it."""
    action_class: ActionClass = "element"
    """The class of action asked for: a site rule covers this class only."""


def reported_agent(agent: str) -> str:
    """An agent's name as it reported it, marked so (and escaped: no line breaks, no look-alike of the
    person): `says it is "claude-code 1.0"`. Anyone can claim any name, "you (tray)" included."""
    name = agent if len(agent) <= 80 else agent[:79] + "…"
    return "says it is " + json.dumps(name, ensure_ascii=False)


class ApprovalPort(Protocol):
    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer | ApprovalDecision: ...


class SecretStore(Protocol):
    def get(self, name: str) -> str | None: ...


class NoSecrets:
    def get(self, name: str) -> str | None:
        return None


@dataclass(frozen=True)
class WorkflowEntry:
    """One file in workflows/: a valid workflow, or the reason it is not one."""

    workflow_id: str
    file: str
    workflow: Workflow | None = None
    error: str | None = None
    last_run: str | None = None
    last_status: str | None = None


class WorkflowStore(Protocol):
    """Saved workflows (the files are the source of truth) and the last runs of each."""

    def entries(self) -> list[WorkflowEntry]: ...

    def get(self, workflow_id: str) -> WorkflowEntry | None: ...

    def save(self, workflow: Workflow) -> None: ...

    def delete(self, workflow_id: str) -> bool: ...

    def add_run(self, workflow_id: str, run: Mapping[str, Any]) -> None: ...

    def runs(self, workflow_id: str) -> list[dict[str, Any]]: ...


class RunRecordStore(Protocol):
    """The record of every run (`runs/<folder>/<run_id>/run.json` and `data.jsonl`), written as the run goes.

    `folder` is the workflow_id, or a reserved name for runs of workflows that were never saved. Writes
    are atomic (a reader sees the previous step's record or this one's); each folder keeps a bounded
    number of the newest runs. Blocking calls (files)."""

    def write(self, folder: str, record: Mapping[str, Any]) -> None:
        """The run's record as it now stands (its `run_id` says which run)."""
        ...

    def write_rows(self, folder: str, run_id: str, rows: list[dict[str, Any]]) -> None:
        """The rows the run read so far, one JSON object a line."""
        ...

    def records(self, folder: str | None = None) -> list[dict[str, Any]]:
        """The runs of one folder (None: of all), newest first."""
        ...

    def record(self, run_id: str) -> dict[str, Any] | None: ...

    def rows(self, run_id: str) -> list[dict[str, Any]]: ...


class MemoryRunRecords:
    """Run records kept in memory (an engine with no folder for them), the newest `kept` per folder."""

    def __init__(self, kept: int = 50) -> None:
        self.kept = kept
        self._records: dict[str, dict[str, dict[str, Any]]] = {}
        self._rows: dict[str, list[dict[str, Any]]] = {}

    def write(self, folder: str, record: Mapping[str, Any]) -> None:
        runs = self._records.setdefault(folder, {})
        run_id = str(record["run_id"])
        runs[run_id] = json.loads(json.dumps(dict(record)))
        for old in sorted(runs)[: max(0, len(runs) - self.kept)]:  # run ids sort by when they started
            del runs[old]
            self._rows.pop(old, None)

    def write_rows(self, folder: str, run_id: str, rows: list[dict[str, Any]]) -> None:
        self._rows[run_id] = json.loads(json.dumps(rows))

    def records(self, folder: str | None = None) -> list[dict[str, Any]]:
        found = [r for f, runs in self._records.items() if folder in (None, f) for r in runs.values()]
        return sorted(found, key=lambda r: str(r["run_id"]), reverse=True)

    def record(self, run_id: str) -> dict[str, Any] | None:
        return next((r for runs in self._records.values() for k, r in runs.items() if k == run_id), None)

    def rows(self, run_id: str) -> list[dict[str, Any]]:
        return list(self._rows.get(run_id, []))


class StateStore(Protocol):
    """Saved browser states (cookies, storages, URL), encrypted at rest; blocking calls (files, keyring)."""

    def save(self, name: str, state: Mapping[str, Any]) -> None: ...

    def load(self, name: str) -> dict[str, Any] | None:
        """The state saved under `name`, or None when there is none."""
        ...

    def names(self) -> list[str]: ...

    def delete(self, name: str) -> bool: ...


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def time(self) -> float: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()
