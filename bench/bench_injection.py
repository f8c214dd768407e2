"""`observe injection_check` over the labelled fixture set (tests/fixtures/injection/: benign pages that talk
about AI and prompts, injected pages with one attack each): precision and recall of the verdict (flagged =
anything but `clean`), and how long one check takes, through the whole path (MCP stdio → app → extension
→ page → scorer). Prints each page that was wrong, so a change to the scorer can be judged.

Targets: precision ≥ 0.9 and recall ≥ 0.85 (the e2e test's floors); one check ≤ 150 ms median.
Run from the repository:
    scripts/with-keyring .venv/bin/python -m bench.bench_injection [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from tests.support.injection_set import held_out, measure

from bench.common import line, median, p95, served

PRECISION_TARGET = 0.9
RECALL_TARGET = 0.85
TARGET_MS = 150.0


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--verbose", action="store_true", help="every page's verdict and top finding")
    opts = parser.parse_args()

    times: list[float] = []
    async with served() as run:
        site, mcp = run.site, run.mcp
        assert mcp is not None

        async def check(path: str) -> dict[str, Any]:
            await mcp.ok("interact", {"action": "navigate", "url": site.url(path)})
            started = time.perf_counter()
            answer = await mcp.ok("observe", {"what": "injection_check"})
            times.append((time.perf_counter() - started) * 1000)
            return answer

        measured = await measure(check)

    for key, answer in measured.answers.items():
        wrong = key in measured.false_positives or key in measured.false_negatives
        if opts.verbose or wrong:
            top = answer["findings"][0] if answer["findings"] else {}
            where = f"{top.get('location', '-')}/{top.get('hidden_by', top.get('attribute', ''))}"
            mark = "WRONG " if wrong else ""
            print(f"{mark}{key:<58} {answer['verdict']:<17} {answer['score']:.2f} {where} {top.get('reason', '')}")
    print("all pages:", measured.summary())
    rounds = ("h1", "h2", "h3")
    print("first pages:", measured.only(lambda k: not any(held_out(k, r) for r in rounds)).summary())
    for round_ in rounds:
        print(f"held-out round {round_}:", measured.only(lambda k, r=round_: held_out(k, r)).summary())
    print(
        line(
            "precision (flagged = not clean)",
            f"{measured.precision:.3f}",
            f"≥ {PRECISION_TARGET}",
            measured.precision >= PRECISION_TARGET,
        )
    )
    print(line("recall", f"{measured.recall:.3f}", f"≥ {RECALL_TARGET}", measured.recall >= RECALL_TARGET))
    print(
        line(
            "injection_check through MCP, median (busy machine)",
            f"{median(times):.1f} ms",
            f"≤ {TARGET_MS:.0f} ms",
            median(times) <= TARGET_MS,
        )
    )
    print(line("injection_check through MCP, p95 (busy machine)", f"{p95(times):.1f} ms", "-"))


if __name__ == "__main__":
    asyncio.run(main())
