"""A stand-in for the draw helper (``python tests/fake_draw_helper.py``), chosen by ``FAKE_DRAW_HELPER``: ``fail``
(reads every draw, sends none), ``silent`` (reads nothing, says nothing), ``slow`` (the real helper on a busy core:
0.3 s more per draw)."""

from __future__ import annotations

import os
import sys
import time

from benchlab.data.analysis.stats import bootstrap, draw_helper

MODE = os.environ.get("FAKE_DRAW_HELPER", "")


def _slow(*args: object) -> tuple[float, float]:
    time.sleep(0.3)
    return bootstrap.percentile_interval(*args)  # type: ignore[arg-type]


if MODE == "silent":
    time.sleep(120)
elif MODE == "fail":
    sys.stdin.buffer.read()
elif MODE == "slow":
    draw_helper.percentile_interval = _slow  # type: ignore[assignment]
    draw_helper.main()
