"""Two ``benchlab serve`` nodes behind HAProxy (Debian's ``haproxy``), routed by token, sharing one results folder:
the node holding a session is killed mid-session, the page reconnects through HAProxy to the other node and the
session resumes there with nothing lost or duplicated; a session is never live on two nodes at once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from session_helpers import write_testset
from web_browser import Served, browser, free_port, listening, require_browser
from web_native import DESKTOP, drive, view, wait_text

HAPROXY_CFG = """global
  maxconn 2000
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  timeout tunnel 1h
  option redispatch
  retries 3
frontend participants
  bind 127.0.0.1:{port}
  default_backend nodes
backend nodes
  balance uri depth 2
  hash-type consistent
  option httpchk GET /static/native.css
  server a 127.0.0.1:{a} check inter 300 fall 1 rise 2
  server b 127.0.0.1:{b} check inter 300 fall 1 rise 2
"""


def haproxy() -> str:
    found = shutil.which("haproxy") or ("/usr/sbin/haproxy" if os.path.exists("/usr/sbin/haproxy") else None)
    if found is None:
        if os.environ.get("BENCHLAB_REQUIRE_BROWSER") == "1":
            pytest.fail("haproxy not found (apt-get install haproxy)")
        pytest.skip("haproxy not found (apt-get install haproxy) - the failover test is skipped")
    return found


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[tuple[int, int, int]]:
    port, a, b = free_port(), free_port(), free_port()
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(HAPROXY_CFG.format(port=port, a=a, b=b))
    proc = subprocess.Popen([haproxy(), "-db", "-f", str(cfg)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while not listening(port):
        assert proc.poll() is None and time.monotonic() < deadline, "haproxy did not start"
        time.sleep(0.05)
    yield port, a, b
    proc.terminate()
    proc.wait(5)


def holder(out: Path) -> int:
    """The process holding the session's lock (its pid is written in the lock file)."""
    text = next((out / "sessions").glob(".human*P01*.lock")).read_text().strip()
    return int(text) if text else 0


def test_killing_the_node_of_a_session_moves_it_to_the_other_node(tmp_path: Path, proxy: tuple[int, int, int]) -> None:
    port, a, b = proxy
    testset = write_testset(tmp_path / "testset", tuples_per_cell=3, sizes=(3,), problems=("Infer.trivial",))
    (tmp_path / "people.csv").write_text("id\nP01\n")
    args = ["--testset", str(testset), "--tuples-per-cell", "2", "--practice", "0", "--seed", "5", "--no-instructions"]
    nodes = {name: Served("worldsense", tmp_path / "out", tmp_path / "people.csv", args, port=p,
                          serve_only=["--node", name, "--public-url", f"http://127.0.0.1:{port}"])
             for name, p in (("a", a), ("b", b))}
    with browser(require_browser()) as chromium:
        context = chromium.new_context(**DESKTOP)
        try:
            for node in nodes.values():
                node.start()
            link = nodes["a"].link("P01")
            assert link.startswith(f"http://127.0.0.1:{port}/s/")
            page = context.new_page()
            page.goto(link)
            wait_text(page, "Only respond")
            time.sleep(0.3)
            page.keyboard.press("1")
            results = tmp_path / "out" / "results" / "basic___human-P01___results.jsonl"
            deadline = time.monotonic() + 5
            while not (results.exists() and results.read_text().count("\n") == 1):
                assert time.monotonic() < deadline
                time.sleep(0.05)
            wait_text(page, "Only respond")
            pid = holder(tmp_path / "out")
            live = {n for n, node in nodes.items() if node.proc is not None and node.proc.pid == pid}
            assert len(live) == 1
            (owner,) = live
            other = "b" if owner == "a" else "a"
            # The same link opened directly on the other node: the session stays where it is live.
            direct = context.new_page()
            direct.goto(link.replace(f":{port}/", f":{a if other == 'a' else b}/"))
            time.sleep(1.5)
            assert view(direct)["cover"] and "Only respond" not in view(direct)["text"]
            direct.close()
            assert "Only respond" in view(page)["text"] and not view(page)["cover"]
            time.sleep(0.3)
            nodes[owner].kill()
            t0 = time.monotonic()
            while not view(page)["cover"]:
                assert time.monotonic() - t0 < 4, "no Reconnecting cover"
                time.sleep(0.05)
            while view(page)["cover"]:  # reconnected through HAProxy, on the other node
                assert time.monotonic() - t0 < 20, "the session did not move"
                time.sleep(0.05)
            wait_text(page, "Welcome back")  # the other node opened the session from the shared folder
            moved_s = time.monotonic() - t0
            page.keyboard.press("Enter")
            wait_text(page, "Only respond")
            assert holder(tmp_path / "out") == nodes[other].proc.pid  # type: ignore[union-attr]
            drive(page, lambda _c, _t: "2", timeout_s=30)
        finally:
            context.close()
            for node in nodes.values():
                node.stop()
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 4 and len({r["Key"] for r in records}) == 4  # nothing lost, nothing duplicated
    assert records[0]["resp"] == "TRUE" and records[1]["interrupted"] is True and records[1]["interruptions"] >= 1
    assert moved_s < 20
    print(f"failover: the session moved to node {other} in {moved_s:.1f} s")


