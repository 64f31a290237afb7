"""Participant flow: who joined, consented, started, finished, was excluded (by each rule), withdrew or abandoned,
counted from the sessions' own files, and drawn as an inline SVG flow diagram (CONSORT-like boxes)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from benchlab.annotations.exclusions.dataset import StudyData
from benchlab.annotations.exclusions.evaluate import ExclusionLog
from benchlab.annotations.online.completion import PROVISIONAL
from benchlab.annotations.online.places import places
from benchlab.annotations.online.private import COMPLETIONS_FILE, private_dir, read_jsonl
from benchlab.annotations.session.status import SessionStatus, read_statuses

WITHDRAWALS_FILE = "withdrawals.jsonl"


@dataclass
class Flow:
    joined: int
    consented: int
    started: int
    finished: int
    abandoned: int
    declined: int
    live: int
    withdrawn: int
    pilots: int
    excluded_by_rule: dict[str, int] = field(default_factory=dict)
    excluded: int = 0
    analysed: int = 0
    invited: int = 0
    #: online studies: how each joined person's session ended (label -> people), from the online slice's records
    online: dict[str, int] = field(default_factory=dict)


#: The outcomes an online study records (annotations/online/completion.py), in flow order, with their labels.
ONLINE_OUTCOMES = {"completed_code": "completed, code given", "completed": "completed, no code",
                   "failed_attention": "completed, failed attention checks", "declined": "declined consent",
                   "screened_out": "screened out", "timed_out": "timed out", "abandoned": "abandoned (place freed)",
                   "withdrew": "withdrew"}


def online_outcomes(data: StudyData) -> dict[str, int]:
    """People per online outcome: the first completion the online slice stored for each (its private completions
    log holds the outcome and whether a code was given), and sessions whose place was freed as abandoned with no
    completion. Counts only: no id leaves the private folder. Empty for a study without ``[online]``."""
    study = data.study
    if study is None or study.spec.online is None:
        return {}
    ended: dict[str, str] = {}
    withdrew = 0
    for record in read_jsonl(private_dir(study.folder) / COMPLETIONS_FILE):
        who, outcome = record.get("participant"), str(record.get("outcome"))
        if outcome == "withdrew" and who is None:  # a withdrawal's line: no id left, counted once
            withdrew += 1
        elif isinstance(who, str) and (who not in ended or ended[who] in PROVISIONAL):  # screened, then took part
            ended[who] = "completed_code" if outcome == "completed" and record.get("code") else outcome
    for place in places(study):
        if place.abandoned and place.participant not in ended:
            ended[place.participant] = "abandoned"
    counts = {key: sum(1 for o in ended.values() if o == key) for key in ONLINE_OUTCOMES}
    counts["withdrew"] += withdrew
    counts.update({o: sum(1 for v in ended.values() if v == o) for o in ended.values() if o not in ONLINE_OUTCOMES})
    return {ONLINE_OUTCOMES.get(k, k): n for k, n in counts.items() if n}


def all_statuses(data: StudyData) -> list[SessionStatus]:
    """Every session of the study as the Sessions screen reads it (live, disconnected, declined ...)."""
    return [s for o in data.outs for s in read_statuses(o)]


def withdrawn_count(data: StudyData) -> int:
    """Audit lines of withdrawals (counted, never named: the audit holds no personal data)."""
    folders = {*data.outs, *([data.study.folder] if data.study is not None else [])}
    count = 0
    for folder in folders:
        path = Path(folder) / WITHDRAWALS_FILE
        if path.is_file():
            count += sum(1 for line in path.read_text(encoding="utf-8").splitlines()
                         if line.strip().startswith("{") and json.loads(line).get("event") == "withdrawn")
    return count


def participant_flow(data: StudyData, log: ExclusionLog, simulated: set[str]) -> Flow:
    """Counts of people (participant ids; simulated pilots counted apart, never in the flow)."""
    statuses = [s for s in all_statuses(data) if s.participant not in simulated]
    by_person: dict[str, set[str]] = {}
    for s in statuses:
        by_person.setdefault(s.participant, set()).add(s.state)
    for record in data.assignments():
        if not record.get("simulated"):
            by_person.setdefault(str(record["participant"]), set()).add("assigned")
    people = set(by_person)
    started = {p for p, states in by_person.items() if states & {"practice", "trial", "break", "disconnected",
                                                                 "finished"}}
    finished = {p for p, states in by_person.items() if states and states <= {"finished", "assigned"}
                and "finished" in states}
    declined = {p for p, states in by_person.items() if "declined" in states and p not in started}
    live = {p for p, states in by_person.items() if states & {"consent", "practice", "trial", "break"}}
    abandoned = {p for p, states in by_person.items() if "disconnected" in states}
    by_rule = {k: len([p for p in ps if p not in simulated]) for k, ps in log.by_rule().items()}
    excluded = {e.participant for e in log.entries if e.participant not in simulated}
    analysed = [p for p in started if p not in excluded]
    return Flow(joined=len(people), consented=len(started | live - declined), started=len(started),
                finished=len(finished), abandoned=len(abandoned), declined=len(declined), live=len(live),
                withdrawn=withdrawn_count(data), pilots=len(simulated), excluded_by_rule=by_rule,
                excluded=len(excluded & started), analysed=len(analysed), invited=_invited(data),
                online=online_outcomes(data))


def _invited(data: StudyData) -> int:
    """People given a link by ``benchlab serve`` (its ``serve-tokens.json``: one token per invited person)."""
    count = 0
    for out in data.outs:
        path = Path(out) / "serve-tokens.json"
        if path.is_file():
            try:
                tokens = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            count += len(tokens) if isinstance(tokens, dict) else 0
    return count


def flow_svg(flow: Flow) -> str:
    """The flow diagram: main boxes top to bottom, the people leaving at each step in side boxes."""
    invited = f"Invited (links): {flow.invited}; joined: {flow.joined}" if flow.invited else \
        f"Joined (assigned or connected): {flow.joined}"
    main = [invited, f"Consented: {flow.consented}", f"Started: {flow.started}", f"Finished: {flow.finished}",
            f"Analysed (started, not excluded): {flow.analysed}"]
    rules = "; ".join(f"{k} {v}" for k, v in flow.excluded_by_rule.items()) or "no rules"
    side = [f"Declined consent: {flow.declined}; live now: {flow.live}",
            f"Withdrawn (removed, audit only): {flow.withdrawn}",
            f"Abandoned (did not finish): {flow.abandoned}",
            f"Excluded of those started: {flow.excluded} ({rules})", ""]
    width, box_w, box_h, gap = 640, 280, 34, 22
    outcomes = _wrapped("Online outcomes: " + "; ".join(f"{k} {v}" for k, v in flow.online.items()), 95) \
        if flow.online else []
    height = len(main) * (box_h + gap) + 10 + (16 * len(outcomes) + 14 if outcomes else 0)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
             f'role="img" aria-label="Participant flow" font-family="sans-serif" font-size="12">']
    for i, text in enumerate(main):
        y = 5 + i * (box_h + gap)
        parts.append(f'<rect x="10" y="{y}" width="{box_w}" height="{box_h}" fill="#fff" stroke="#000"/>')
        parts.append(f'<text x="{10 + box_w / 2}" y="{y + 21}" text-anchor="middle">{escape(text)}</text>')
        if i + 1 < len(main):
            parts.append(f'<line x1="{10 + box_w / 2}" y1="{y + box_h}" x2="{10 + box_w / 2}" '
                         f'y2="{y + box_h + gap}" stroke="#000" marker-end="url(#a)"/>')
        if side[i]:
            sy = y + box_h + gap / 2 - box_h / 2
            parts.append(f'<line x1="{10 + box_w / 2}" y1="{y + box_h + gap / 2}" x2="330" '
                         f'y2="{y + box_h + gap / 2}" stroke="#555"/>')
            parts.append(f'<rect x="330" y="{sy}" width="300" height="{box_h}" fill="#f4f4f4" stroke="#555"/>')
            parts.append(f'<text x="338" y="{sy + 21}" font-size="11">{escape(side[i][:50])}</text>')
    if outcomes:
        y = 5 + len(main) * (box_h + gap)
        parts.append(f'<rect x="10" y="{y}" width="620" height="{16 * len(outcomes) + 10}" fill="#f4f4f4" '
                     'stroke="#555"/>')
        parts += [f'<text x="18" y="{y + 18 + 16 * i}" font-size="11">{escape(line)}</text>'
                  for i, line in enumerate(outcomes)]
    parts.insert(1, '<defs><marker id="a" markerWidth="8" markerHeight="8" refX="4" refY="4" orient="auto">'
                 '<path d="M0,0 L8,4 L0,8 z"/></marker></defs>')
    parts.append("</svg>")
    return "".join(parts)


def _wrapped(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines
