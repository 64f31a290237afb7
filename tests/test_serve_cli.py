"""``benchlab serve``: the participants file, the links (stable across restarts), ``--add``, a port in use, and the
live table; each user error is one line naming the file and line."""

from __future__ import annotations

import csv
import os
import signal
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from benchlab.data.errors import BenchlabError
from benchlab.tui.web.participants import ensure_tokens, parse_participants
from benchlab.tui.web.status_table import StatusRow, render, with_connections

OPTIONS = ("condition", "trials", "participants")
CLI = [sys.executable, "-c", "from benchlab.tui.cli import main; main()"]


def parse(text: str) -> list:
    return parse_participants(text, Path("people.csv"), OPTIONS)


def test_participants_file_with_option_columns() -> None:
    rows = parse("# lab A\nid,condition,list\nP01,stm,\"P01,P02\"\n\nP02,ltm,\"P01,P02\"\nP03,,\n")
    assert [p.id for p in rows] == ["P01", "P02", "P03"]
    assert rows[0].options == {"condition": "stm", "participants": "P01,P02"}
    assert rows[2].options == {}
    assert [p.id for p in parse("P01\nP02\n")] == ["P01", "P02"]  # a bare list of ids


@pytest.mark.parametrize(("text", "where", "says"), [
    ("id\nP01\nP02\nP01\n", "people.csv:4:", "'P01' is listed twice (first on line 2)"),
    ("id\nP01\nP 2\n", "people.csv:3:", "must be 1-64 letters"),
    ("id,colour\nP01,red\n", "people.csv:1:", "unknown column 'colour'"),
    ("name,age\nAda,3\n", "people.csv:1:", "no participant id column"),
    ("id\nP01,extra\n", "people.csv:2:", "2 fields, the header has 1"),
    ("\n\n", "people.csv:1:", "empty"),
])
def test_malformed_participants_files_name_the_line(text: str, where: str, says: str) -> None:
    with pytest.raises(BenchlabError) as err:
        parse(text)
    assert str(err.value).startswith(where) and says in str(err.value)


def test_tokens_are_unguessable_and_kept(tmp_path: Path) -> None:
    first = ensure_tokens(tmp_path, ["P01", "P02"])
    again = ensure_tokens(tmp_path, ["P01", "P02", "P03"])
    assert {k: again[k] for k in first} == first and len(set(again.values())) == 3
    assert all(len(t) >= 32 for t in again.values())
    assert (tmp_path / "serve-tokens.json").stat().st_mode & 0o077 == 0


def test_the_live_table_shows_every_participant() -> None:
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    rows = [StatusRow("P01", "trial", 3, 20, now - timedelta(seconds=5), 0.75), StatusRow("P02", "not started"),
            StatusRow("P03", "practice", last_activity=now - timedelta(minutes=3))]
    table = render(with_connections(rows, {"P01": "connected"}), now=now)
    lines = table.splitlines()
    assert lines[0].split() == ["participant", "state", "last", "activity", "practice", "acc."]
    assert "trial 3 of 20" in lines[2] and "5 s ago" in lines[2] and "75%" in lines[2]
    assert "not started" in lines[3] and "disconnected" in lines[4] and "3 min ago" in lines[4]
    assert lines[-1] == "1 trial, 1 not started, 1 disconnected"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(tmp_path: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*CLI, "serve", "sort", "--participants", str(tmp_path / "people.csv"), "--out",
                             str(tmp_path / "out"), "--port", str(port), *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _links(out: Path) -> dict[str, str]:
    with open(out / "links.csv") as handle:
        return {row["participant"]: row["url"] for row in csv.DictReader(handle)}


def _wait(condition: object, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


def test_serve_prints_links_keeps_them_across_restarts_and_adds_people(tmp_path: Path) -> None:
    (tmp_path / "people.csv").write_text("id,condition\nP01,stm\nP02,ltm\n")
    out = tmp_path / "out"
    port = _free_port()
    proc = _serve(tmp_path, port, "--public-url", "https://lab.example.org/")
    try:
        assert _wait(lambda: (out / "links.csv").exists())
        links = _links(out)
        assert set(links) == {"P01", "P02"} and links["P01"].startswith("https://lab.example.org/s/")
        # A second invocation with --add only adds (the running server serves the new link).
        added = subprocess.run([*CLI, "serve", "sort", "--participants", str(tmp_path / "people.csv"), "--out",
                                str(out), "--port", str(port), "--add", "P07"], capture_output=True, text=True,
                               timeout=60)
        assert added.returncode == 0, added.stderr
        assert "P07 (added): https://lab.example.org/s/" in added.stdout
        assert _wait(lambda: "P07" in _links(out))
        assert "P07" in (tmp_path / "people.csv").read_text()
        # Another server on the same folder is refused (one line, no traceback).
        twice = subprocess.run([*CLI, "serve", "sort", "--participants", str(tmp_path / "people.csv"), "--out",
                                str(out), "--port", str(_free_port())], capture_output=True, text=True, timeout=60)
        assert twice.returncode == 2 and twice.stderr.startswith("benchlab: error: ")
        assert "already serving this folder" in twice.stderr and "Traceback" not in twice.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 0, stderr
    assert "P01: https://lab.example.org/s/" in stdout and "added P07" in stdout and "Traceback" not in stderr
    before = _links(out)
    port = _free_port()
    proc = _serve(tmp_path, port)
    try:
        assert _wait(lambda: _listening(port) and str(port) in (out / "links.csv").read_text())
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    after = _links(out)
    assert {p: u.rsplit("/", 1)[1] for p, u in after.items()} == {p: u.rsplit("/", 1)[1] for p, u in before.items()}


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_port_in_use_and_bad_files_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "people.csv").write_text("id\nP01\nP01\n")
    port = _free_port()
    bad = subprocess.run([*CLI, "serve", "sort", "--participants", str(tmp_path / "people.csv"), "--out",
                          str(tmp_path / "out"), "--port", str(port)], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.strip() == (f"benchlab: error: {tmp_path / 'people.csv'}:3: participant 'P01' is listed twice "
                                  "(first on line 2)")
    (tmp_path / "people.csv").write_text("id\nP01\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        busy = subprocess.run([*CLI, "serve", "sort", "--participants", str(tmp_path / "people.csv"), "--out",
                               str(tmp_path / "out"), "--port", str(port)], capture_output=True, text=True, timeout=60)
    assert busy.returncode == 2 and "Traceback" not in busy.stderr
    assert busy.stderr.strip() == (f"benchlab: error: port {port} on 127.0.0.1 is already in use (another server?); "
                                   "choose another with --port")
    wrong = subprocess.run([*CLI, "serve", "sort", "--participants", str(tmp_path / "people.csv"), "--out",
                            str(tmp_path / "out"), "--trials", "0"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and wrong.stderr.startswith("benchlab: error: --trials")
    assert not os.path.exists(tmp_path / "out" / "sessions")


def test_sighup_re_reads_the_participants_file(tmp_path: Path) -> None:
    """A lab that edits the participants file and tells the server (SIGHUP) gets the new links without a restart,
    even when the edit keeps the file's size and time (so only the signal can tell)."""
    people = tmp_path / "people.csv"
    people.write_text("id,condition\nP01,stm\n")
    out = tmp_path / "out"
    proc = _serve(tmp_path, _free_port())
    try:
        assert _wait(lambda: (out / "links.csv").exists())
        stat = people.stat()
        people.write_text("id,condition\nP09,stm\n")  # same size
        os.utime(people, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same time
        time.sleep(2.5)  # a periodic check would have seen nothing
        assert "P09" not in _links(out)
        proc.send_signal(signal.SIGHUP)
        assert _wait(lambda: "P09" in _links(out), timeout=10)
        assert "P01" not in _links(out)  # a row removed from the file: its link is revoked (issue 23)
    finally:
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=20)
    assert "added P09" in stdout and "Traceback" not in stderr
