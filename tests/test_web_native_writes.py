"""The native server's disk work per answer (issue 18 item 5): one fsync per answer (the record carries the page's
timing; no ``client_timing`` event beside it), page events appended in order without holding up the next view."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from test_web_native_server import answer, join, make_server, receive, results

from benchlab.tui.harness.fsync_probe import probe


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(make_server(tmp_path).make_app())) as c:
        yield c


def events(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "out" / "sessions" / "human-P01_session-1.events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every fsync from now on (the file descriptors, in order)."""
    done: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        done.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return done


async def test_one_fsync_per_answer_and_page_events_logged_in_order(client: TestClient, tmp_path: Path,
                                                                     synced: list[int]) -> None:
    ws, view = await join(client)
    await answer(ws, view, "TRUE")  # the first answer creates the results file (its folder is fsynced too)
    view = await receive(ws, "show")
    await ws.send_json(["log", {"what": "blur", "seq": view["seq"]}])
    before = len(synced)
    await answer(ws, view, "FALSE", rt=25.0)
    await receive(ws, "show")  # the next view: the record is on disk
    assert len(synced) - before == 1  # the record's own fsync, nothing else on the answer's path
    recs = results(tmp_path)
    assert [r["resp"] for r in recs] == ["TRUE", "FALSE"]
    assert recs[1]["client_rt_ms"] == 25.0 and recs[1]["blurs"] == 1  # the page's timing and conduct: in the record
    await ws.close()
    log = events(tmp_path)
    names = [e["event"] for e in log]
    assert "client_timing" not in names
    # in the order they happened, although nobody waited for them
    assert names.index("page_connected") < names.index("trial_onset") < names.index("page_blur")
    assert [e["item_id"] for e in log if e["event"] == "trial_onset"][:2] == [str(r["Key"]) for r in recs]


async def test_a_practice_answer_costs_one_fsync_and_still_logs_its_correctness(tmp_path: Path,
                                                                                 synced: list[int]) -> None:
    async with TestClient(TestServer(make_server(tmp_path, practice=3).make_app())) as client:
        ws, view = await join(client)
        assert view["kind"] == "trial" and view["progress"].startswith("Practice")
        await answer(ws, view, "TRUE")  # the first creates the practice file (its folder is fsynced too)
        view = await receive(ws, "show")
        if view["kind"] == "feedback":
            await ws.send_json(["act", {"seq": view["seq"], "act": "continue"}])
            view = await receive(ws, "show")
        before = len(synced)
        await answer(ws, view, "FALSE")
        await receive(ws, "show")
        assert len(synced) - before == 1  # the practice record's own fsync; practice_answered rides without one
        await ws.close()
    practised = [e for e in events(tmp_path) if e["event"] == "practice_answered"]
    assert len(practised) == 2 and all(isinstance(e["correct"], bool) for e in practised)


def test_the_fsync_probe_reports_each_concurrency_and_leaves_nothing(tmp_path: Path) -> None:
    rows = probe(tmp_path, in_flight=(1, 4), ops=20, files=5)
    assert [r["in_flight"] for r in rows] == [1, 4]
    assert all(r["fsyncs_per_s"] > 0 and 0 < r["p50_ms"] <= r["p95_ms"] <= r["p99_ms"] for r in rows)
    assert list(tmp_path.iterdir()) == []
