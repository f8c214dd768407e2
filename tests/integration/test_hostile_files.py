"""Files a local program drops into the home (issue 18): a FIFO, a socket or a device where a workflow, a
saved state or an upload is expected is refused without being waited on, and a hard link where an
artifact is written is replaced, never written through.

The FIFO test runs the real app (`tabpilot serve`) in a real home: a FIFO nobody writes to blocks any
plain read of it forever, which used to stop the workflow watcher for good (later files never listed,
`tabpilot stop` hanging).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from tabpilot.cli import client
from tabpilot.paths import Paths
from tests.support.processes import Serve, tabpilot
from tests.support.waiting import until


def _workflow(workflow_id: str) -> str:
    return json.dumps({"workflow_id": workflow_id, "name": workflow_id, "steps": [{"type": "click", "selector": "#a"}]})


def _listed(home: Path) -> dict[str, Any]:
    target = client.find(Paths.resolve(home))
    answer = client.post(target, "/api/v1/call", {"tool": "observe", "arguments": {"what": "workflows"}}, timeout=5)
    assert isinstance(answer, dict), answer
    return {w["workflow_id"]: w for w in answer.get("result", answer).get("workflows", [])}


async def test_a_fifo_in_workflows_blocks_nothing_and_the_app_stops(home: Path) -> None:
    serve = Serve(home, "--browser", "none", "--port", "0")
    await serve.start(connected=False)
    try:
        folder = Paths.resolve(home).workflows_dir
        os.mkfifo(folder / "trap.json")
        (folder / "wf-after.json").write_text(_workflow("wf-after"), encoding="utf-8")

        async def after_listed() -> dict[str, Any] | None:
            listed = await asyncio.to_thread(_listed, home)
            return listed if "wf-after" in listed else None

        listed = await until(after_listed, timeout=2, interval=0.05, what="wf-after to be listed past the FIFO")
        # The FIFO is listed with what is wrong with it: the person sees why their "workflow" does nothing.
        assert "trap" in listed, listed
        assert "not a regular file" in str(listed["trap"].get("error")), listed["trap"]
        # Still watching: a file written after the FIFO was seen shows up too.
        (folder / "wf-later.json").write_text(_workflow("wf-later"), encoding="utf-8")
        await until(
            lambda: asyncio.to_thread(lambda: "wf-later" in _listed(home)), timeout=2, what="wf-later to be listed"
        )
        stopped = await asyncio.to_thread(tabpilot, home, "stop", timeout=30)
        assert stopped.returncode == 0, stopped.stderr
        assert await serve.wait_exit(timeout=10) == 0
    finally:
        await serve.stop()
