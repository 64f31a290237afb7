"""The one function that decides who is excluded: :func:`exclusion_log`. ``compare``, ``export trials``, the Results
screen and ``benchlab report`` all call it, so a rule means the same everywhere.

It reads the trials the sessions recorded (the same rows ``export trials`` writes: practice and scored trials with
response times and paradata), the sessions' status from their own files (plans, events logs) and the study's
assignments log. Each exclusion is logged per person: the rule, the figure that person had, the threshold, and
whether the rule was declared in the study file or chosen on the command line (exploratory).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.annotations.exclusions.rules import Rule

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class SessionProgress:
    """How far one session got, from its plan, events log and recorded trials (the fields the Sessions screen's
    status has; read here without it, so the comparison of any task may call the exclusions)."""

    participant: str
    session: str
    state: str  # "finished" or "unfinished"
    trial: int | None  # scored trials recorded
    n_trials: int | None  # scored trials planned


@dataclass(frozen=True)
class Exclusion:
    """One person left out by one rule: the figure they had beside the rule's threshold."""

    participant: str
    rule: str
    figure: str
    threshold: str
    declared: bool
    data: str

    @property
    def text(self) -> str:
        label = "declared" if self.declared else "exploratory"
        return f"{self.rule} ({label}): {self.figure} vs {self.threshold}"

    def as_dict(self) -> dict[str, Any]:
        return {"participant": self.participant, "rule": self.rule, "figure": self.figure,
                "threshold": self.threshold, "declared": self.declared, "data": self.data}


@dataclass(frozen=True)
class ExclusionLog:
    """Every rule applied and every person each one excluded (a person may be excluded by several)."""

    rules: tuple[Rule, ...]
    entries: tuple[Exclusion, ...]
    participants: tuple[str, ...]  # everyone the rules were applied to

    @property
    def excluded(self) -> dict[str, tuple[str, ...]]:
        """{participant: reasons}, the form the comparison pipeline takes (``Options.excluded``)."""
        out: dict[str, list[str]] = {}
        for e in self.entries:
            out.setdefault(e.participant, []).append(e.text)
        return {p: tuple(r) for p, r in out.items()}

    def by_rule(self) -> dict[str, list[str]]:
        """{rule kind: participants it excluded}, every rule present (also those that excluded nobody)."""
        out: dict[str, list[str]] = {r.kind: [] for r in self.rules}
        for e in self.entries:
            out.setdefault(e.rule, []).append(e.participant)
        return out

    @property
    def exploratory(self) -> bool:
        return any(not r.declared for r in self.rules)

    def rows(self) -> list[dict[str, Any]]:
        return [e.as_dict() for e in self.entries]


def exclusion_log(rules: Sequence[Rule], trials: pd.DataFrame, statuses: Iterable[SessionProgress] = (),
                  events: dict[str, list[dict[str, Any]]] | None = None,
                  assignments: Sequence[dict[str, Any]] = ()) -> ExclusionLog:
    """Apply ``rules`` to each participant of ``trials`` (the ``export trials`` frame: ``participant``,
    ``practice``, ``rt_ms``, ``correct`` and any paradata columns such as ``seen_share``), the sessions'
    ``statuses`` and ``events`` (per participant) and the study's ``assignments``.

    Scored-trial correctness is never read: only practice rows' ``correct`` (rule ``practice_accuracy``).
    """
    statuses = list(statuses)
    events = events or {}
    people = list(dict.fromkeys([*map(str, trials["participant"].dropna().unique()),
                                 *(s.participant for s in statuses if s.state != "not started")]))
    entries: list[Exclusion] = []
    for rule in rules:
        for person in people:
            found = _apply(rule, person, trials[trials["participant"] == person], statuses, events.get(person, []),
                           assignments)
            if found is not None:
                figure, threshold = found
                entries.append(Exclusion(person, rule.kind, figure, threshold, rule.declared, rule.data))
    return ExclusionLog(tuple(rules), tuple(entries), tuple(people))


def _apply(rule: Rule, person: str, rows: pd.DataFrame, statuses: list[SessionProgress],
           events: list[dict[str, Any]], assignments: Sequence[dict[str, Any]]) -> tuple[str, str] | None:
    """(figure, threshold) when ``rule`` excludes ``person``, else None."""
    p = rule.params
    scored = rows[rows["practice"] == False]  # noqa: E712 (a pandas boolean column; missing counts as scored)
    if rule.kind in ("rt_floor", "rt_ceiling"):
        rts = scored["rt_ms"].dropna().astype(float)
        if rts.empty:
            return None
        beyond = (rts < p["ms"]) if rule.kind == "rt_floor" else (rts > p["ms"])
        share = float(beyond.mean())
        word = "faster" if rule.kind == "rt_floor" else "slower"
        if share > p["max_share"]:
            return (f"{share:.0%} of {len(rts)} responses {word} than {p['ms']:g} ms",
                    f"at most {p['max_share']:.0%}")
        return None
    if rule.kind == "practice_accuracy":
        practice = rows[rows["practice"] == True]["correct"].dropna()  # noqa: E712
        if practice.empty:
            return None
        accuracy = float(practice.astype(float).mean())
        if accuracy < p["min"]:
            return f"practice accuracy {accuracy:.0%} ({len(practice)} trials)", f"at least {p['min']:.0%}"
        return None
    if rule.kind == "seen_share":
        if "seen_share" not in rows.columns:
            return None
        import pandas as pd  # deferred: only frames with paradata reach here; this module loads with the CLI

        seen = pd.to_numeric(scored["seen_share"], errors="coerce").dropna()
        if seen.empty:
            return None
        mean = float(seen.mean())
        if mean < p["min"]:
            return f"mean seen share {mean:.2f} ({len(seen)} trials)", f"at least {p['min']:.2f}"
        return None
    if rule.kind == "incomplete":
        mine = [s for s in statuses if s.participant == person and s.state != "not started"]
        unfinished = [s for s in mine if s.state != "finished"]
        if unfinished:
            s = unfinished[0]
            done = f"{s.trial if s.trial is not None else 0} of {s.n_trials}" if s.n_trials else "no"
            return f"session {s.session} {s.state} ({done} scored trials)", "every planned scored trial"
        return None
    if rule.kind == "attention_checks":
        # the online slice's score of the declared checks ([online.attention]), stored in each session's
        # `completion` event (annotations/online/completion.py): one scoring, read here
        scored_checks = [e for e in events if e.get("event") == "completion"
                         and isinstance(e.get("attention_failed"), int)]
        failed = sum(int(e["attention_failed"]) for e in scored_checks)
        answered = sum(int(e.get("attention_answered") or 0) for e in scored_checks)
        if failed > p["max_failed"]:
            return f"{failed} of {answered} attention checks failed", f"at most {p['max_failed']:g}"
        return None
    if rule.kind == "duplicate":
        first: dict[str, str] = {}
        for record in assignments:
            key = record.get("person")
            if isinstance(key, str) and key:
                first.setdefault(key, str(record.get("participant")))
        for record in assignments:
            key = record.get("person")
            if str(record.get("participant")) == person and isinstance(key, str) and first.get(key) != person:
                return f"same person as {first[key]}", "one participant id per person"
        return None
    raise AssertionError(rule.kind)  # every kind of rules.KINDS is handled above


def session_events(out: Path) -> dict[str, list[dict[str, Any]]]:
    """Every events log under ``out``'s sessions folders, by participant (unreadable lines skipped: a torn tail)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted([*out.glob("sessions/*.events.jsonl"), *out.glob("*/sessions/*.events.jsonl"),
                        *out.glob("*/*/sessions/*.events.jsonl")]):
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for line in lines:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(event, dict) and event.get("participant") is not None:
                found.setdefault(str(event["participant"]), []).append(event)
    return found
