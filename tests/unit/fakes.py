"""Fakes for the engine's ports: a scripted browser, scripted approvals and a clock that moves on demand."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tabpilot.engine.contract.operations import problems
from tabpilot.engine.ports import ApprovalAnswer, ApprovalDecision, ApprovalRequest, WorkflowEntry
from tabpilot.engine.workflows.workflows import Workflow, parse_workflow

Reply = dict[str, Any] | BaseException | Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


NO_CHANGE = "no visible change"
FAKE_TITLE = "Fake"


def _fake_answers(url: str) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    """What the extension answers each operation a test does not script (extension/background/*.js and
    content/*.js make these shapes), on a plain page at `url`."""
    return {
        "tab.navigate": lambda p: {"status": "complete", "url": p.get("url", url), "title": FAKE_TITLE},
        "tab.history": lambda p: {"status": "complete", "url": url, "title": FAKE_TITLE, "changed": f"reloaded {url}"},
        "js.execute": lambda p: {"success": True, "result": None},
        "page.info": lambda p: {
            "url": url,
            "title": FAKE_TITLE,
            "viewport": {"width": 1280, "height": 720},
            "scroll": {"x": 0, "y": 0},
            "documentHeight": 720,
            "forms": [],
            "headings": [],
            "links": 0,
            "images": 0,
            "interactiveElements": 0,
        },
        "dom.query": lambda p: {"url": url, "title": FAKE_TITLE, "matches": [], "matchCount": 0, "returnedCount": 0},
        "tabs.list": lambda p: {"tabs": []},
        "dom.click": lambda p: {"clicked": True, "changed": NO_CHANGE},
        "dom.fill": lambda p: {"filled": True, "changed": NO_CHANGE},
        "dom.type": lambda p: {"typed": len(str(p.get("text", ""))), "changed": NO_CHANGE},
        "dom.press": lambda p: {"pressed": p.get("key", ""), "changed": NO_CHANGE},
        "dom.select": lambda p: {
            "selected": [str(p.get("value") or p.get("label") or p.get("text") or "")],
            "labels": [str(p.get("label") or p.get("text") or p.get("value") or "")],
            "changed": NO_CHANGE,
        },
        "dom.scroll": lambda p: {"scroll": {"x": 0, "y": 0}, "documentHeight": 720},
        "dom.check": lambda p: {"checked": p.get("checked") is not False, "changed": "checked"},
        "dom.hover": lambda p: {"hovered": True, "changed": NO_CHANGE},
        "dom.focus": lambda p: {"focused": True, "tag": "input", "changed": NO_CHANGE},
        "dom.drag": lambda p: {"dragged": True, "html5": False, "changed": NO_CHANGE},
        "page.wait_for": lambda p: {"condition": "load", "url": url, "waited_ms": 0},
        "page.dismiss_overlays": lambda p: {"closed": [], "changed": NO_CHANGE},
        "dom.highlight": lambda p: {
            "highlighted": True,
            "selector": p.get("selector", ""),
            "bounds": {"x": 0, "y": 0, "width": 100, "height": 20},
            "duration_ms": p.get("duration_ms", 5000),
            "role": "button",
            "name": "",
        },
    }


def page_info(**fields: Any) -> dict[str, Any]:
    """page.info's answer (content/agent.js) for a plain page, with `fields` in it."""
    answer = _fake_answers(str(fields.get("url", "https://example.test/")))["page.info"]({})
    return {**answer, **fields}


@dataclass
class BrowserCall:
    op: str
    params: dict[str, Any]
    timeout_s: float


class FakeBrowser:
    """A BrowserPort: records each request; answers from `replies` (a dict, an exception or a coroutine)."""

    def __init__(self, *, connected: bool = True, active_url: str | None = "https://example.test/") -> None:
        self._connected = connected
        self.connected_reads = 0
        self.active_url = active_url
        self.replies: dict[str, Reply] = {}
        self.queued: dict[str, list[Reply]] = {}
        """Replies used once each, in order, before falling back to `replies`."""
        self.calls: list[BrowserCall] = []

    @property
    def connected(self) -> bool:
        self.connected_reads += 1
        return self._connected

    def connect(self, on: bool = True) -> None:
        self._connected = on

    def info(self) -> dict[str, Any]:
        if not self._connected:
            return {}
        return {"name": "FakeChromium", "version": "1.0", "active_url": self.active_url}

    async def request(self, op: str, params: Mapping[str, Any], *, timeout_s: float) -> dict[str, Any]:
        # What the real extension would refuse (an operation or a parameter engine/contract/operations.py does not
        # declare) fails here too: the engine and the extension's allow-list cannot drift apart unseen.
        trouble = problems(op, {k: v for k, v in params.items() if v is not None})
        assert not trouble, trouble
        self.calls.append(BrowserCall(op, dict(params), timeout_s))
        answer = _fake_answers(self.active_url or "about:blank").get(op)
        default: Reply = answer(dict(params)) if answer is not None else {"op": op, "params": dict(params)}
        if op == "tabs.resolve":  # the engine asks which tab an approval is for
            default = {"tab_id": params.get("tab_id", 1), "url": self.active_url or "", "title": "Fake"}
        if op == "capture.flush":  # says which tab it flushed, as the extension does
            default = {"tab_id": params.get("tab_id", 1), "flushed": 0, "frames": 1}
        queued = self.queued.get(op)
        reply = queued.pop(0) if queued else self.replies.get(op, default)
        if isinstance(reply, BaseException):
            raise reply
        answer = await reply(dict(params)) if callable(reply) else dict(reply)
        if op == "tabs.list" and isinstance(answer.get("tabs"), list):
            # The app's link names the browser each tab is in (bridge/link.py), as here.
            answer["tabs"] = [{"browser": "FakeChromium", **t} if isinstance(t, dict) else t for t in answer["tabs"]]
        return answer

    def queue(self, op: str, *replies: Reply) -> None:
        """Answer the next calls of `op` with `replies`, one each, then as `replies[op]` says."""
        self.queued.setdefault(op, []).extend(replies)

    @property
    def ops(self) -> list[str]:
        return [c.op for c in self.calls]

    @property
    def acting_calls(self) -> list[BrowserCall]:
        """Everything but the read that tells which tab a command is for."""
        return [c for c in self.calls if c.op != "tabs.resolve"]


class FakeApprovals:
    """An ApprovalPort answering from a script: 'allow', 'deny', 'timeout' (raises), 'hold', or an
    ApprovalDecision (an answer that also asks for a standing rule).

    'hold' (also used once the script runs out) parks the request on a future the test resolves.
    """

    def __init__(self, *script: str | ApprovalDecision) -> None:
        self.script: list[str | ApprovalDecision] = list(script)
        self.requests: list[ApprovalRequest] = []
        self.held: list[asyncio.Future[ApprovalAnswer]] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer | ApprovalDecision:
        self.requests.append(request)
        answer = self.script.pop(0) if self.script else "hold"
        if isinstance(answer, ApprovalDecision):
            return answer
        if answer == "timeout":
            raise TimeoutError
        if answer == "hold":
            future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
            self.held.append(future)
            return await future
        assert answer in ("allow", "deny")
        return answer  # type: ignore[return-value]


class FakeClock:
    """A Clock that only moves when told to."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return 1_700_000_000.0 + self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class MemoryWorkflowStore:
    """A WorkflowStore in memory. Saves go through JSON, as on disk; `files` holds what would be written."""

    runs_kept = 10

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self._entries: dict[str, WorkflowEntry] = {}
        self._runs: dict[str, list[dict[str, Any]]] = {}

    def entries(self) -> list[WorkflowEntry]:
        return [self._with_last_run(self._entries[k]) for k in sorted(self._entries)]

    def get(self, workflow_id: str) -> WorkflowEntry | None:
        entry = self._entries.get(workflow_id)
        return self._with_last_run(entry) if entry else None

    def save(self, workflow: Workflow) -> None:
        text = json.dumps(workflow.document(), indent=2)
        self.files[workflow.workflow_id] = text
        self._entries[workflow.workflow_id] = WorkflowEntry(
            workflow.workflow_id, f"{workflow.workflow_id}.json", workflow=parse_workflow(json.loads(text))
        )

    def put(self, doc: dict[str, Any]) -> Workflow:
        """A workflow as if a user had written its file by hand."""
        workflow = parse_workflow(doc)
        self.save(workflow)
        return workflow

    def put_invalid(self, workflow_id: str, error: str) -> None:
        self.files[workflow_id] = "{not json"
        self._entries[workflow_id] = WorkflowEntry(workflow_id, f"{workflow_id}.json", error=error)

    def delete(self, workflow_id: str) -> bool:
        self.files.pop(workflow_id, None)
        self._runs.pop(workflow_id, None)
        return self._entries.pop(workflow_id, None) is not None

    def add_run(self, workflow_id: str, run: Mapping[str, Any]) -> None:
        stored = json.loads(json.dumps(dict(run)))
        self._runs[workflow_id] = [stored, *self._runs.get(workflow_id, [])][: self.runs_kept]

    def runs(self, workflow_id: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self._runs.get(workflow_id, [])]

    def _with_last_run(self, entry: WorkflowEntry) -> WorkflowEntry:
        runs = self._runs.get(entry.workflow_id) or [{}]
        return WorkflowEntry(
            entry.workflow_id,
            entry.file,
            entry.workflow,
            entry.error,
            last_run=runs[0].get("finished_at"),
            last_status=runs[0].get("status"),
        )


class DictSecrets:
    """A SecretStore over a dict; records which names were asked for."""

    def __init__(self, **values: str) -> None:
        self.values = dict(values)
        self.asked: list[str] = []

    def get(self, name: str) -> str | None:
        self.asked.append(name)
        return self.values.get(name)
