"""A chain: several tool calls sent as one request (`tabpilot chain`), run in order through the
engine's one entry point for agents (`Engine.call`: the pilot gate, approvals, activity rows, secret
scrubbing — each call exactly as if it had come alone), stopping at the first that fails or that is
not finished when its call returns (an approval nobody answered in time: what comes next would act on
a page in an unknown state)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tabpilot.engine.errors import TabpilotError

if TYPE_CHECKING:
    from tabpilot.engine.core import Engine

MAX_CHAIN = 50
UNFINISHED = ("queued", "running", "awaiting_approval", "awaiting_user")


@dataclass(frozen=True)
class ChainCall:
    tool: str
    arguments: dict[str, Any]


def parse_calls(body: Any) -> list[ChainCall]:
    """The calls of a chain request `{calls:[{tool, arguments}]}`; invalid_params when it is not one."""
    calls = body.get("calls") if isinstance(body, dict) else None
    if not isinstance(calls, list) or not calls or len(calls) > MAX_CHAIN:
        raise TabpilotError(
            "invalid_params", f"Body must be {{calls:[{{tool, arguments}}, ...]}} with 1 to {MAX_CHAIN} calls."
        )
    out = []
    for n, call in enumerate(calls, 1):
        tool = call.get("tool") if isinstance(call, dict) else None
        arguments = call.get("arguments", {}) if isinstance(call, dict) else None
        if not isinstance(tool, str) or not isinstance(arguments, dict):
            raise TabpilotError("invalid_params", f"Call {n} must be {{tool, arguments}} with an object of arguments.")
        out.append(ChainCall(tool, arguments))
    return out


def _unfinished(result: dict[str, Any]) -> bool:
    return result.get("status") in UNFINISHED and "correlation_id" in result


async def run_chain(engine: Engine, calls: list[ChainCall], agent: str, session: str | None = None) -> dict[str, Any]:
    """`{ok, results:[{ok, result} | {ok:false, error}], completed, total}`; stops at the first failure."""
    results: list[dict[str, Any]] = []
    for call in calls:
        try:
            result = await engine.call(call.tool, call.arguments, agent=agent, session=session)
        except TabpilotError as exc:
            results.append({"ok": False, "error": exc.envelope()})
            break
        results.append({"ok": True, "result": result})
        if _unfinished(result):
            break
    completed = sum(1 for r in results if r["ok"] and not _unfinished(r["result"]))
    return {"ok": completed == len(calls), "results": results, "completed": completed, "total": len(calls)}
