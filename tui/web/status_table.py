"""The experimenter's live table of participants (``benchlab serve``), rendered from plain rows.

Rendering takes rows shaped like ``benchlab.annotations.session.status.SessionStatus`` (participant, state, trial,
n_trials, last_activity, practice_accuracy), so the source can be the server's own view or the status read from
the output folder; :func:`with_connections` lays the server's live connection state over file-derived rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Protocol


class StatusLike(Protocol):
    """What a row needs (``SessionStatus`` from the output folder has these fields)."""

    @property
    def participant(self) -> str: ...

    @property
    def state(self) -> str: ...

    @property
    def trial(self) -> int | None: ...

    @property
    def n_trials(self) -> int | None: ...

    @property
    def last_activity(self) -> datetime | None: ...

    @property
    def practice_accuracy(self) -> float | None: ...


@dataclass(frozen=True)
class StatusRow:
    """One participant as the table shows them."""

    participant: str
    state: str
    trial: int | None = None
    n_trials: int | None = None
    last_activity: datetime | None = None
    practice_accuracy: float | None = None


def _state(row: StatusLike) -> str:
    if row.state == "trial" and row.trial is not None:
        return f"trial {row.trial} of {row.n_trials}" if row.n_trials else f"trial {row.trial}"
    return row.state


def _ago(when: datetime | None, now: datetime) -> str:
    if when is None:
        return "-"
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = max(0, int((now - when).total_seconds()))
    if seconds < 60:
        return f"{seconds} s ago"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min ago"


def render(rows: Sequence[StatusLike], now: datetime | None = None) -> str:
    """The table (header, one line per participant, a count per state), ending with a newline."""
    now = now or datetime.now(UTC)
    header = ("participant", "state", "last activity", "practice acc.")
    body = [(r.participant, _state(r), _ago(r.last_activity, now),
             "-" if r.practice_accuracy is None else f"{r.practice_accuracy:.0%}") for r in rows]
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
             for line in (header, tuple("-" * w for w in widths), *body)]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.state] = counts.get(r.state, 0) + 1
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items()) or "no participants")
    return "\n".join(lines) + "\n"


def with_connections(rows: Iterable[StatusLike], live: Mapping[str, str]) -> list[StatusRow]:
    """``rows`` with the server's view where it knows better: ``live`` maps a participant to "waiting to start"
    or "connected"; a file state in progress without a connection reads "disconnected"."""
    out: list[StatusRow] = []
    in_progress = {"consent", "practice", "trial", "break"}
    for r in rows:
        row = StatusRow(r.participant, r.state, r.trial, r.n_trials, r.last_activity, r.practice_accuracy)
        conn = live.get(r.participant)
        if conn == "waiting to start" or (conn == "connected" and r.state == "not started"):
            row = replace(row, state="starting" if conn == "connected" else conn)
        elif conn is None and r.state in in_progress:
            row = replace(row, state="disconnected")
        out.append(row)
    return out
