"""``power`` estimates its cost and refuses past a bound before simulating (issue 23 item 7): the plan that once
passed 6.9 GB and ran past 120 s is one line in well under a second; the default plans stay within the bound."""

from __future__ import annotations

import subprocess
import sys
import time

from benchlab.data.analysis.power import PARTICIPANT_GRID
from benchlab.data.analysis.power_cost import MAX_BYTES, MAX_SECONDS, estimate_cost


def test_the_huge_plan_is_refused_at_once_in_bounded_memory() -> None:
    args = ["power", "sort", "--participants", "500", "--max-participants", "500", "--simulations", "20000",
            "--items-per-cell", "500", "--cells", "200"]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "benchlab.tui.cli", *args], capture_output=True, text=True,
                          timeout=60)
    assert time.perf_counter() - started < 60
    assert done.returncode == 2 and "lower --simulations" in done.stderr and "Traceback" not in done.stderr


def test_sort_s_default_plan_is_within_the_bound() -> None:
    cost = estimate_cost(4 * 10, 1, 20, 100, 300, PARTICIPANT_GRID)  # 4 cells x 10 trials, 300 simulations, <= 100
    assert cost.seconds < MAX_SECONDS and cost.peak_bytes < MAX_BYTES
