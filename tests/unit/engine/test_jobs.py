"""Jobs: correlation ids, the pending view agents get, and the bounded table of finished results."""

from __future__ import annotations

import asyncio

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.jobs import KEEP_BYTES, KEEP_FINISHED, Job, JobTable


def test_correlation_ids_are_unique_and_recognisable() -> None:
    table = JobTable()
    ids = {table.create("observe", "page", 0.0).correlation_id for _ in range(200)}
    assert len(ids) == 200
    assert all(cid.startswith("corr-") for cid in ids)


def test_pending_view() -> None:
    job = Job("corr-1", "interact", "scrape")
    assert job.pending_view() == {"status": "queued", "correlation_id": "corr-1"}
    job.set_status("running")
    assert job.pending_view() == {
        "status": "running",
        "correlation_id": "corr-1",
        "steps_completed": 0,
        "steps_total": None,
    }
    job.progress(2, 5)
    job.progress(3)  # the total is kept
    assert job.pending_view()["steps_completed"] == 3
    assert job.pending_view()["steps_total"] == 5


def test_progress_reaches_listeners() -> None:
    job = Job("corr-1", "interact", "scrape")
    seen: list[tuple[int, int | None, str]] = []
    job.progressed.subscribe(lambda *args: seen.append(args))
    job.progress(1, 4, "page 1")
    job.progress(2)
    assert seen == [(1, 4, "page 1"), (2, 4, "")]


def test_finish_and_fail_end_the_job() -> None:
    ok = Job("corr-1", "observe", "page")
    ok.finish({"title": "A"})
    assert ok.done and ok.status == "complete" and ok.result == {"title": "A"}
    bad = Job("corr-2", "observe", "page")
    bad.fail(TabpilotError("timeout", "slow"))
    assert bad.done and bad.status == "error" and bad.error is not None


async def test_wait_changed_wakes_on_a_change_and_honours_its_limit() -> None:
    job = Job("corr-1", "observe", "page")
    waiter = asyncio.create_task(job.wait_changed(None))
    await asyncio.sleep(0)
    assert not waiter.done()
    job.set_status("running")
    await asyncio.wait_for(waiter, 5)
    await asyncio.wait_for(job.wait_changed(0), 5)  # a spent limit returns at once
    await asyncio.wait_for(job.wait_changed(0.01), 5)  # no change: returns after the limit


def test_finished_jobs_are_kept_up_to_a_bound_running_ones_always() -> None:
    table = JobTable(keep_finished=2)
    finished = [table.create("observe", "page", 0.0) for _ in range(4)]
    running = table.create("observe", "page", 0.0)
    for job in finished:
        job.finish({})
        table.finished(job, now=1.0)
    assert [table.get(j.correlation_id) for j in finished] == [None, None, finished[2], finished[3]]
    assert table.get(running.correlation_id) is running
    assert table.running() == [running]
    assert table.get("corr-unknown") is None


def test_finished_results_are_dropped_after_their_time_and_beyond_the_count() -> None:
    table = JobTable(keep_finished=3, keep_for_s=60)
    jobs = [table.create("observe", "page", started=0) for _ in range(5)]
    for i, job in enumerate(jobs):
        job.finish({"n": i})
        table.finished(job, now=float(i))
    assert [table.get(j.correlation_id) is not None for j in jobs] == [False, False, True, True, True]
    late = table.create("observe", "page", started=100)
    late.finish({})
    table.finished(late, now=100.0)  # the others ended more than 60 s before
    assert [table.get(j.correlation_id) is not None for j in jobs] == [False] * 5
    assert table.get(late.correlation_id) is late


def test_finished_results_are_kept_within_a_byte_budget_the_newest_always() -> None:
    """Issue 18: RSS grew 117 → 267 MB over a fuzz and stayed there: 200 finished results (screenshots,
    pages read, a megabyte each) were held for 15 minutes. Together they are bounded now."""
    table = JobTable()
    megabyte = "x" * (1 << 20)
    jobs = []
    for n in range(10_000):
        job = table.create("generate", "screenshot", started=float(n))
        job.finish({"data": megabyte if n % 20 == 0 else "small", "n": n})
        table.finished(job, now=float(n) / 100)
        jobs.append(job)
    kept = [j for j in jobs if table.get(j.correlation_id) is not None]
    assert len(kept) <= KEEP_FINISHED
    assert sum(len(j.result["data"]) for j in kept if j.result) <= KEEP_BYTES
    assert kept[-1] is jobs[-1]  # the newest is always there to be fetched
    big = table.create("generate", "pdf", started=0.0)
    big.finish({"data": "x" * (KEEP_BYTES * 2)})  # one result past the whole budget: still fetchable once
    table.finished(big, now=200.0)
    assert table.get(big.correlation_id) is big
    assert [j for j in jobs if table.get(j.correlation_id) is not None] == []
