"""Whole WorldSense sessions on the native page in real headless Chromium (instructions, practice with feedback, the
trials), by keys at 1280x720 and by taps on a phone (390x844, touch), scored identically to the same answers given
through the terminal's engine."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from session_helpers import write_testset
from web_browser import Served, browser, require_browser
from web_native import DESKTOP, PHONE, run_session, scored_json, terminal_replay


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser(require_browser()) as instance:
        yield instance


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["keys-1280x720", "taps-390x844"])
def test_worldsense_session(tmp_path: Path, chromium: Any, device: dict[str, Any]) -> None:
    testset = write_testset(tmp_path / "testset", tuples_per_cell=3, sizes=(3,), problems=("Infer.trivial",))
    (tmp_path / "people.csv").write_text("id\nP01\n")
    served = Served("worldsense", tmp_path / "out", tmp_path / "people.csv",
                    ["--testset", str(testset), "--tuples-per-cell", "2", "--practice", "1", "--seed", "5",
                     "--title", "Memory study"])
    given = run_session(chromium, served, device, "12")
    results = [json.loads(line) for line in
               (served.out / "results" / "basic___human-P01___results.jsonl").read_text().splitlines()]
    assert len(results) == 4
    kind = "touch" if device is PHONE else "key"
    for r in results:
        assert r["input"] == kind and r["onset_source"] == "page_raf"
        assert 0 < r["client_rt_ms"] <= (r["response_mono"] - r["requested_mono"]) * 1000 + 5
        assert r["interrupted"] is False and r["interruptions"] == 0 and r["blurs"] == 0
    answers = [{"1": "TRUE", "2": "FALSE"}[k] for k in given]
    terminal_replay("worldsense", {"dataset": str(testset), "participant": "P01", "out": str(tmp_path / "term"),
                                   "tuples_per_cell": 2, "practice": 1, "seed": 5}, answers)
    assert (scored_json("worldsense", served.out / "results", testset)
            == scored_json("worldsense", tmp_path / "term" / "results", testset))
