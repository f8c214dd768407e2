"""The shell CLI as an agent's shell runs it: one whole `tabpilot …` process per call, against a running app.

Target (issue 11, which finishes the speed; issue 10 builds the client light): `tabpilot js 1+1` and
`tabpilot call interact '{"action":"execute_js","script":"1+1"}'` as whole processes ≤ 30 ms. Printed
beside them: bare Python's start (the floor), `tabpilot js --help` (the CLI without the app), and the
per-command cost of a 10-command `tabpilot chain`. Each is run as `python -m tabpilot` and, where the
environment has one, as the `tabpilot` console script an agent's shell finds on its PATH (which skips
`-m`'s runpy, ~4 ms). Python writes its bytecode caches here as it does in an install, whatever
PYTHONDONTWRITEBYTECODE says in this shell.
Run from the repository:
    scripts/with-keyring .venv/bin/python -m bench.bench_cli [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.common import line, median, p95, served


def whole(argv: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    """Wall time of one process, start to exit, in ms (it must succeed)."""
    began = time.perf_counter()
    done = subprocess.run(argv, env=env, input=stdin, capture_output=True, text=True, check=False)
    elapsed = (time.perf_counter() - began) * 1000
    assert done.returncode == 0, f"{argv}: {done.returncode} {done.stderr}"
    return elapsed


def runs(n: int, argv: list[str], env: dict[str, str], stdin: str | None = None) -> list[float]:
    whole(argv, env, stdin)  # warm: .pyc files, the page cache
    return [whole(argv, env, stdin) for _ in range(n)]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    opts = parser.parse_args()
    rows: list[str] = []
    async with served(mcp=False) as run:
        site, home = run.site, run.home
        env = {**os.environ, "TABPILOT_HOME": str(home)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        tp = [sys.executable, "-m", "tabpilot"]
        script = Path(sys.executable).with_name("tabpilot")
        launchers = {"-m tabpilot": tp, **({"tabpilot": [str(script)]} if script.exists() else {})}
        await asyncio.to_thread(whole, [*tp, "goto", site.url("/index.html")], env)
        measured = {"python -c pass (the floor)": runs(opts.runs, [sys.executable, "-c", "pass"], env)}
        for shown, launcher in launchers.items():
            measured |= {
                f"{shown} js --help (no app)": runs(opts.runs, [*launcher, "js", "--help"], env),
                f"{shown} js 1+1": runs(opts.runs, [*launcher, "js", "1+1"], env),
                f"{shown} call execute_js 1+1": runs(
                    opts.runs, [*launcher, "call", "interact", '{"action":"execute_js","script":"1+1"}'], env
                ),
            }
        chain = json.dumps([["js", "1+1"]] * 10)
        chained = [t / 10 for t in runs(max(3, opts.runs // 4), [*tp, "chain"], env, chain)]
    for name, times in measured.items():
        target = "≤ 30 ms" if "1+1" in name else "-"
        ok = median(times) <= 30 if "1+1" in name else None
        rows.append(line(f"{name} median (p95 {p95(times):.0f} ms)", f"{median(times):.1f} ms", target, ok))
    rows.append(line("tabpilot chain of 10 js calls, per call", f"{median(chained):.1f} ms", "-"))
    print("\n".join(rows))


if __name__ == "__main__":
    asyncio.run(main())
