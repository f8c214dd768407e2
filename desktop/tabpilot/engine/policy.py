"""The approval policy: standing rules first, then the human (a dialog, or `serve --approve`).

Rules: allow for a site (an origin) for N minutes; always allow a saved workflow, bound to a hash of
its steps so that an edited workflow asks again. "Allow once" and "deny" are answers, not rules.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

from tabpilot.engine.ports import ApprovalDecision, ApprovalPort, ApprovalRequest, Clock, SystemClock

log = logging.getLogger("tabpilot.approval")

RuleKind = Literal["site", "workflow"]
MAX_SITE_MINUTES = 24 * 60


@dataclass(frozen=True)
class Rule:
    rule_id: str
    kind: RuleKind
    created_at: float
    origin: str = ""
    expires_at: float | None = None
    workflow_id: str = ""
    steps_hash: str = ""
    agent: str = ""

    def describe(self) -> str:
        if self.kind == "site":
            return f"allow page changes on {self.origin}"
        return f"always allow workflow {self.workflow_id}"

    @classmethod
    def from_dict(cls, raw: Any) -> Rule | None:
        if not isinstance(raw, dict):
            return None
        try:
            rule = cls(**{k: raw[k] for k in raw if k in cls.__dataclass_fields__})
        except TypeError:
            return None
        return rule if rule.kind in ("site", "workflow") and rule.rule_id else None


class RuleStore(Protocol):
    """Where rules persist (the keyring in the app: a file an agent could write must not allow actions)."""

    def load(self) -> list[Rule]: ...

    def save(self, rules: list[Rule]) -> None: ...


class MemoryRules:
    def __init__(self) -> None:
        self.rules: list[Rule] = []

    def load(self) -> list[Rule]:
        return list(self.rules)

    def save(self, rules: list[Rule]) -> None:
        self.rules = list(rules)


def steps_hash(steps: Any) -> str:
    canonical = json.dumps(steps, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def as_decision(answer: Any) -> ApprovalDecision:
    if isinstance(answer, ApprovalDecision):
        return answer
    return ApprovalDecision(allow=answer == "allow")


class ApprovalPolicy:
    """An ApprovalPort: answers from a standing rule when one applies, else asks `human`."""

    def __init__(self, human: ApprovalPort, store: RuleStore | None = None, clock: Clock | None = None) -> None:
        self.human = human
        self.store = store or MemoryRules()
        self.clock = clock or SystemClock()
        self._rules = self.store.load()
        self.listeners: list[Callable[[], None]] = []

    # -- ApprovalPort -----------------------------------------------------------------------------

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        rule = self.matching(request)
        if rule is not None:
            log.info("%s.%s for %s allowed by rule: %s", request.tool, request.mode, request.agent, rule.describe())
            return ApprovalDecision(allow=True, rule_id=rule.rule_id)
        decision = as_decision(await self.human.decide(request))
        if decision.allow and decision.remember == "site" and request.origin:
            minutes = max(1, min(decision.minutes or 15, MAX_SITE_MINUTES))
            self._add(
                Rule(
                    rule_id=_new_id(),
                    kind="site",
                    created_at=self.clock.time(),
                    origin=request.origin,
                    expires_at=self.clock.time() + minutes * 60,
                    agent=request.agent,
                )
            )
        elif decision.allow and decision.remember == "workflow" and request.workflow_id and request.steps_hash:
            self._add(
                Rule(
                    rule_id=_new_id(),
                    kind="workflow",
                    created_at=self.clock.time(),
                    workflow_id=request.workflow_id,
                    steps_hash=request.steps_hash,
                    agent=request.agent,
                )
            )
        return decision

    # -- rules --------------------------------------------------------------------------------------

    def matching(self, request: ApprovalRequest) -> Rule | None:
        self._expire()
        for rule in self._rules:
            if rule.kind == "site" and request.origin and rule.origin == request.origin:
                return rule
            if (
                rule.kind == "workflow"
                and request.workflow_id == rule.workflow_id
                and request.steps_hash
                and request.steps_hash == rule.steps_hash
            ):
                return rule
        return None

    def rules(self) -> list[Rule]:
        self._expire()
        return list(self._rules)

    def revoke(self, rule_id: str) -> bool:
        before = len(self._rules)
        self._rules = [r for r in self._rules if r.rule_id != rule_id]
        if len(self._rules) == before:
            return False
        self._persist()
        return True

    def _add(self, rule: Rule) -> None:
        # one rule per site / per workflow: the newest answer wins
        self._rules = [
            r
            for r in self._rules
            if not (r.kind == rule.kind and (r.origin, r.workflow_id) == (rule.origin, rule.workflow_id))
        ]
        self._rules.append(rule)
        log.info("new approval rule: %s", rule.describe())
        self._persist()

    def _expire(self) -> None:
        now = self.clock.time()
        alive = [r for r in self._rules if r.expires_at is None or r.expires_at > now]
        if len(alive) != len(self._rules):
            self._rules = alive
            self._persist()

    def _persist(self) -> None:
        self.store.save(self._rules)
        for listener in list(self.listeners):
            listener()


def rules_to_json(rules: list[Rule]) -> str:
    return json.dumps([asdict(r) for r in rules], separators=(",", ":"))


def rules_from_json(text: str | None) -> list[Rule]:
    try:
        raw = json.loads(text) if text else []
    except ValueError:
        return []
    return [r for r in (Rule.from_dict(item) for item in raw if isinstance(raw, list)) if r is not None]


def _new_id() -> str:
    return "rule-" + secrets.token_hex(4)
