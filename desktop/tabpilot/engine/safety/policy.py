"""The approval policy: standing rules first, then the human (a dialog, or `serve --approve`).

A standing rule covers what the person saw and no more (interface.md §4): the agent that asked (by the
name it reported), and either a site and the class of action approved — element actions or running
JavaScript — for N minutes, or a saved workflow bound to a hash of its steps and values (an edited
workflow asks again). "Allow once" and "deny" are answers, not rules.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, Protocol

from tabpilot.engine.ports import (
    ActionClass,
    ApprovalDecision,
    ApprovalPort,
    ApprovalRequest,
    Clock,
    SystemClock,
    reported_agent,
)
from tabpilot.observers import Observers

log = logging.getLogger("tabpilot.approval")

RuleKind = Literal["site", "workflow"]
MAX_SITE_MINUTES = 24 * 60
CLASS_WORDS: dict[str, str] = {
    "element": "element actions",
    "javascript": "running JavaScript",
    "state": "restoring saved browser states (cookies and storage)",
    "emulation": "emulating another device, screen size or user agent in the tab",
    "network": "mocking, blocking or adding headers to the tab's requests",
    "workflows": "running workflows whose steps are not all element actions",
}
SITE_RULE_CLASSES = ("element", "javascript", "emulation", "network")
"""The classes "Allow for this site" can make a standing rule for."""


@cache
def _modes_of_class() -> dict[str, tuple[str, ...]]:
    from tabpilot.engine.catalog import build_registry

    found: dict[str, list[str]] = {}
    for command in build_registry().all():
        if command.approval is not None and command.mode not in found.setdefault(command.approval, []):
            found[command.approval].append(command.mode)
    return {cls: tuple(modes) for cls, modes in found.items()}


@cache
def _class_of_action() -> dict[str, str]:
    """Each interact action's approval class (a workflow step of kind X is the action X)."""
    from tabpilot.engine.catalog import build_registry

    return {c.mode: c.approval for c in build_registry().modes("interact") if c.approval is not None}


def class_name(action_class: str) -> str:
    """What a class of action covers, in words, with the modes it covers (from the definitions): what the
    approval prompt offers a standing rule for and the rules window lists."""
    words = CLASS_WORDS.get(action_class, action_class)
    modes = _modes_of_class().get(action_class)
    return f"{words} ({', '.join(modes)})" if modes else words


def action_class(steps: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...]) -> ActionClass:
    """The class of a request's page-changing steps, from each step kind's definition: JavaScript when any
    step runs a script, element actions when every step is one, else the class no site rule is given for."""
    of_mode = _class_of_action()
    classes = {of_mode.get(str(step.get("type"))) for step in steps}
    if "javascript" in classes:
        return "javascript"
    if classes == {"element"}:
        return "element"
    return "workflows"


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
    """The agent that asked, by the name it reported: the rule covers that name only."""
    action_class: str = ""
    """For a site rule: the class of action approved (element | javascript)."""

    def allows(self) -> str:
        """What the rule lets happen without a prompt, in a few words (the rules window's first column)."""
        if self.kind == "site":
            what = class_name(self.action_class)
            return what[0].upper() + what[1:]
        return "Replay this saved workflow, same steps and values"

    def describe(self) -> str:
        """Everything the rule covers, in one sentence: the agent, the site or workflow, the class, how long."""
        who = f"the agent that {reported_agent(self.agent)}"
        if self.kind == "site":
            until = (
                "until revoked"
                if self.expires_at is None
                else time.strftime("until %Y-%m-%d %H:%M", time.localtime(self.expires_at))
            )
            return f"{who} may do {class_name(self.action_class)} on {self.origin}, {until}"
        return f"{who} may replay workflow {self.workflow_id} with the same steps and values, until revoked"

    def covers(self, request: ApprovalRequest) -> bool:
        if not self.agent or request.agent != self.agent:
            return False
        if self.kind == "site":
            return bool(request.origin) and request.origin == self.origin and request.action_class == self.action_class
        return bool(
            request.workflow_id == self.workflow_id and request.steps_hash and request.steps_hash == self.steps_hash
        )

    @classmethod
    def from_dict(cls, raw: Any) -> Rule | None:
        if not isinstance(raw, dict):
            return None
        try:
            rule = cls(**{k: raw[k] for k in raw if k in cls.__dataclass_fields__})
        except TypeError:
            return None
        if rule.kind not in ("site", "workflow") or not rule.rule_id or not rule.agent:
            return None
        if rule.kind == "site" and rule.action_class not in SITE_RULE_CLASSES:
            # Kept before rules had a class (they allowed every page change, JavaScript too, for any
            # agent): no one can tell what the person saw, so the rule is dropped and they are asked again.
            log.info("dropped an approval rule for %s kept without its class of action", rule.origin)
            return None
        return rule


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
    """An ApprovalPort's answer as a decision; a bare "allow"/"deny" came from a person."""
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
        self.changed: Observers[[]] = Observers("approval rules")
        """Told when a rule is added, revoked or expires."""

    # -- ApprovalPort -----------------------------------------------------------------------------

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        rule = self.matching(request)
        if rule is not None:
            log.info("%s.%s allowed by a standing rule: %s", request.tool, request.mode, rule.describe())
            return ApprovalDecision(allow=True, rule_id=rule.rule_id, decided_by="rule")
        decision = as_decision(await self.human.decide(request))
        if decision.decided_by != "person":
            return decision  # `--approve auto` or the policy: nobody chose to remember anything
        if (
            decision.allow
            and decision.remember == "site"
            and request.origin
            and " " not in request.origin
            and request.action_class in SITE_RULE_CLASSES
        ):
            minutes = max(1, min(decision.minutes or 15, MAX_SITE_MINUTES))
            self._add(
                Rule(
                    rule_id=_new_id(),
                    kind="site",
                    created_at=self.clock.time(),
                    origin=request.origin,
                    expires_at=self.clock.time() + minutes * 60,
                    agent=request.agent,
                    action_class=request.action_class,
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
        return next((rule for rule in self._rules if rule.covers(request)), None)

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
        # one rule per agent and site and class / per agent and workflow: the newest answer wins
        key = (rule.kind, rule.agent, rule.origin, rule.action_class, rule.workflow_id)
        self._rules = [r for r in self._rules if (r.kind, r.agent, r.origin, r.action_class, r.workflow_id) != key]
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
        self.changed.notify()


def _new_id() -> str:
    return "rule-" + secrets.token_hex(4)
