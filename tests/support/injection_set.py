"""The labelled prompt-injection pages (tests/fixtures/injection/) and how a run over them is scored:
a page counts as flagged when `observe injection_check` says anything but `clean`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "injection"
LABELS = ("benign", "injected")


def pages() -> list[tuple[str, str]]:
    """(label, name) of every fixture page, benign first, in name order."""
    return [(label, p.stem) for label in LABELS for p in sorted((FIXTURES / label).glob("*.html"))]


def held_out(key: str, round_: str) -> bool:
    """A page of held-out round `round_` ("h1", "h2": named h1-00-...): written after the scorer's last
    change before its round was measured."""
    return key.split("/", 1)[-1].startswith(f"{round_}-")


def path_of(label: str, name: str) -> str:
    """The page's path on the fixture site (tests/support/site.py serves /injection/...)."""
    return f"/injection/{label}/{name}.html"


@dataclass
class Measured:
    true_positives: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)
    false_negatives: list[str] = field(default_factory=list)
    true_negatives: list[str] = field(default_factory=list)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)

    def only(self, keep: Callable[[str], bool]) -> Measured:
        """The same run restricted to the pages whose `label/name` `keep` accepts (e.g. the held-out ones)."""
        return Measured(
            [k for k in self.true_positives if keep(k)],
            [k for k in self.false_positives if keep(k)],
            [k for k in self.false_negatives if keep(k)],
            [k for k in self.true_negatives if keep(k)],
            {k: v for k, v in self.answers.items() if keep(k)},
        )

    @property
    def precision(self) -> float:
        flagged = len(self.true_positives) + len(self.false_positives)
        return len(self.true_positives) / flagged if flagged else 1.0

    @property
    def recall(self) -> float:
        injected = len(self.true_positives) + len(self.false_negatives)
        return len(self.true_positives) / injected if injected else 1.0

    def summary(self) -> str:
        return (
            f"precision {self.precision:.3f} recall {self.recall:.3f} "
            f"(tp {len(self.true_positives)}, fp {len(self.false_positives)}, "
            f"fn {len(self.false_negatives)}, tn {len(self.true_negatives)})"
        )


async def measure(check: Callable[[str], Awaitable[dict[str, Any]]]) -> Measured:
    """Runs `check(path)` (which shows the page and answers observe injection_check) on every page."""
    out = Measured()
    for label, name in pages():
        answer = await check(path_of(label, name))
        key = f"{label}/{name}"
        out.answers[key] = answer
        flagged = answer["verdict"] != "clean"
        if label == "injected":
            (out.true_positives if flagged else out.false_negatives).append(key)
        else:
            (out.false_positives if flagged else out.true_negatives).append(key)
    return out
