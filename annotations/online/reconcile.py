"""``benchlab study reconcile DIR --submissions FILE.csv``: the platform's submissions export against the study's
own records, in the categories a payment decision needs.

Prolific's export has ``Participant id`` (older: ``participant_id``), ``Status``, ``Completion code``; MTurk's batch
results have ``WorkerId``, ``AssignmentId``, ``AssignmentStatus`` (and ``Answer.*`` columns, e.g. the code typed
in). Rows are matched through the key file (raw id -> pseudonymous id), never by writing raw ids anywhere else.

A person who withdrew has no key-file line left; their submission is matched through the withdrawal's completions
line (the keyed hash of the platform id, :func:`~benchlab.annotations.online.completion.log_withdrawal`) and listed
as "withdrew", decided by the study's ``withdrew_decision`` (default approve: withdrawing costs the person nothing).
A person the device check refused before consent is listed as "screened out" (review: the platform's rule on
screening payments applies).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.annotations.online.completion import given, screened_out, withdrawal_of
from benchlab.annotations.online.private import COMPLETIONS_FILE, KEY_FILE, person_key, private_dir, read_jsonl
from benchlab.annotations.online.session_files import on_disk
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:  # the study module imports the online package
    from benchlab.annotations.study import Study

ID_COLUMNS = ("Participant id", "participant_id", "Participant Id", "WorkerId")
STATUS_COLUMNS = ("Status", "status", "AssignmentStatus")
CODE_COLUMNS = ("Completion code", "completion_code", "Answer.surveycode", "Answer.code")
DONE_STATUSES = {"approved", "awaiting review", "awaiting_review", "submitted", "completed"}
GONE_STATUSES = {"returned", "timed-out", "timed_out", "timed out", "rejected", "abandoned"}
CATEGORIES = ("complete on both", "complete on platform, missing or partial here", "complete here, no submission",
              "returned or timed out", "code mismatch", "withdrew", "screened out")


@dataclass(frozen=True)
class Row:
    person: str  # the platform id (for the decision file the researcher uploads back; not a results file)
    participant: str  # the pseudonymous id ('' when the person never joined)
    status: str
    code_platform: str
    code_given: str
    category: str
    decision: str


def read_submissions(path: Path) -> list[tuple[int, dict[str, str]]]:
    """(line, row) of a submissions CSV; one clear error naming file and line for bad bytes, unknown columns or a
    duplicate submission."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BenchlabError(f"cannot read the submissions file ({exc.strerror or exc})", path) from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BenchlabError(f"not UTF-8 text ({exc.reason})", path, raw[:exc.start].count(b"\n") + 1) from None
    if "\0" in text:
        raise BenchlabError("a NUL byte: not a CSV export", path, text[:text.index("\0")].count("\n") + 1)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = reader.fieldnames or []
    if not any(c in columns for c in ID_COLUMNS) or not any(c in columns for c in STATUS_COLUMNS):
        raise BenchlabError("not a Prolific or MTurk submissions export: needs a participant id column ("
                            f"{' or '.join(ID_COLUMNS)}) and a status column ({' or '.join(STATUS_COLUMNS)}); "
                            f"found {', '.join(columns[:8]) or 'no header'}", path, 1)
    id_col = next(c for c in ID_COLUMNS if c in columns)
    rows: list[tuple[int, dict[str, str]]] = []
    seen: dict[tuple[str, str], int] = {}
    for row in reader:
        line = reader.line_num
        if None in row:
            raise BenchlabError(f"more fields than the header has ({len(columns)})", path, line)
        person = (row.get(id_col) or "").strip()
        if not person:
            raise BenchlabError(f"a row without a {id_col}", path, line)
        key = (person, (row.get("AssignmentId") or row.get("Submission id") or "").strip())
        if key in seen:
            raise BenchlabError(f"{id_col} {person!r} is listed twice (also on line {seen[key]})", path, line)
        seen[key] = line
        rows.append((line, {k: (v or "").strip() for k, v in row.items() if k is not None}))
    return rows


def reconcile(study: Study, submissions: Path) -> list[Row]:
    """One row per submission, then one per session completed here without a submission."""
    rows = read_submissions(submissions)
    by_person = {str(r.get("person")): str(r.get("participant"))
                 for r in read_jsonl(private_dir(study.folder) / KEY_FILE)}
    out: list[Row] = []
    matched: set[str] = set()
    for _line, row in rows:
        person = next(row[c] for c in ID_COLUMNS if c in row)
        status = next(row[c] for c in STATUS_COLUMNS if c in row)
        code_platform = next((row[c] for c in CODE_COLUMNS if row.get(c)), "")
        pid = by_person.get(person, "")
        matched.add(pid)
        done = given(study, pid) if pid else None
        code_given = (done.code or "") if done else ""
        withdrawn = _withdrawal(study, person) if not pid else None
        if status.lower() in GONE_STATUSES:
            category, decision = "returned or timed out", "none"
        elif withdrawn is not None:
            category, decision = "withdrew", study.spec.online.withdrew_decision if study.spec.online else "review"
            code_given = str(withdrawn.get("code") or "")
        elif done is None and pid and screened_out(study, pid):
            category, decision = "screened out", "review"
        elif done is None or done.outcome != "completed" or not _complete(study, pid):
            category, decision = "complete on platform, missing or partial here", "review"
        elif code_platform and code_given and code_platform != code_given:
            category, decision = "code mismatch", "review"
        else:
            category, decision = "complete on both", "approve"
        out.append(Row(person, pid, status, code_platform, code_given, category, decision))
    people = {v: k for k, v in by_person.items()}
    for pid, person in sorted(people.items()):
        done = given(study, pid)
        if pid not in matched and done is not None and done.outcome == "completed":
            out.append(Row(person, pid, "", "", done.code or "", "complete here, no submission", "ask"))
    return out


def _withdrawal(study: Study, person: str) -> dict[str, Any] | None:
    """The withdrawal line of the platform id ``person`` (none without any withdrawal: no secret is made here)."""
    if not any(r.get("outcome") == "withdrew" for r in read_jsonl(private_dir(study.folder) / COMPLETIONS_FILE)):
        return None
    return withdrawal_of(study, person_key(study.folder, person))


def _complete(study: Study, pid: str) -> bool:
    disk = on_disk(study.out, pid)
    return "completed" in disk.names()


def table(rows: list[Row]) -> str:
    counts = {c: sum(1 for r in rows if r.category == c) for c in CATEGORIES}
    lines = [f"{'category':<48} {'n':>4}"] + [f"{c:<48} {n:>4}" for c, n in counts.items()]
    return "\n".join(lines)


def to_csv(rows: list[Row]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["platform_id", "participant", "platform_status", "code_platform", "code_given", "category",
                     "decision"])
    for r in rows:
        writer.writerow([r.person, r.participant, r.status, r.code_platform, r.code_given, r.category, r.decision])
    return buffer.getvalue()
