"""The designed settings of each SORT session, read from the plans the sessions saved beside their results.

A participant's results file holds every session of one configuration (STM, then LTM, a second session with a
delay): the delay a row was run at is the one its session's plan declares (``config.delay_s``), not a statistic of
the file's measured delays (a median per file gave a delay nobody ran, and rounding measured times split one
designed delay in two). A session writes ``<out>/results/<file>`` and ``<out>/sessions/*.plan.json``; plans are
plain JSON here, so this data-layer reader needs nothing of the session engine.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PlannedSession:
    """What one session's plan says about the design the analysis must keep apart."""

    delay_s: float  # designed wait between reading and the question (0: none)
    condition: str  # "stm" / "ltm"
    #: hours between reading the book and the session, as asked at the start of a whole-book LTM session (NaN:
    #: not asked or not answered)
    since_reading_h: float = math.nan


def plans_near(results_file: str | Path) -> dict[tuple[str, str, str], PlannedSession]:
    """Plans of the sessions folder beside a results folder, by (participant, session, condition); ``{}`` if none."""
    folder = Path(results_file).parent.parent / "sessions"
    out: dict[tuple[str, str, str], PlannedSession] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.plan.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a torn or foreign plan: the measured delays stand in (the notes say so)
        if not isinstance(raw, dict) or raw.get("task") != "sort" or not isinstance(raw.get("config"), dict):
            continue
        config = raw["config"]
        delay = config.get("delay_s", 0.0)
        hours = config.get("since_reading_h")
        condition = str(config.get("condition", "stm")).lower()
        out[(str(raw.get("participant", "")), str(raw.get("session", "")), condition)] = PlannedSession(
            float(delay) if isinstance(delay, int | float) else 0.0, condition,
            float(hours) if isinstance(hours, int | float) and not isinstance(hours, bool) else math.nan)
    return out
