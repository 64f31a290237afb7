"""Withdrawal: remove one person's data from a study, leaving every file valid for the benchmarks' own code.

``benchlab withdraw DIR --participant P07`` (or ``--code`` with the withdrawal code the web end page gave the
person) removes that person's results, practice log, plans, events logs and lock files (per-person files, deleted
whole), rewrites the study's assignments log without their lines (atomically: a reader sees the old or the new
file, never half), removes derived outputs that may hold their rows (``comparison/`` exports and ``report/``), and
appends an audit line to ``withdrawals.jsonl`` that holds counts only, no id. It refuses while any of that person's
sessions is live (its session lock held by a running app), and for an id the study does not know; nothing is
changed then.

The web end page (webpage slice) calls :func:`withdrawal_code` to show the person a code to keep, and
:func:`withdraw_participant` when they press "withdraw my data".
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from benchlab.annotations.cards import help_of
from benchlab.annotations.core_cards import CARDS
from benchlab.annotations.online.completion import log_withdrawal
from benchlab.annotations.online.private import KEY_FILE as ONLINE_KEY_FILE
from benchlab.annotations.online.private import PRIVATE_DIR, locked, person_key, read_jsonl
from benchlab.annotations.options import Options, option
from benchlab.annotations.task import Command
from benchlab.data.atomic import append_line, atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.version import __version__

if TYPE_CHECKING:  # the study module loads every task's session code; the withdrawal loads it when it runs
    from benchlab.annotations.study import Study

AUDIT_FILE = "withdrawals.jsonl"
KEY_FILE = ".withdrawal-key"
DERIVED = ("comparison", "report")
#: ``benchlab serve``'s per-participant files in the output folder (participant -> token; participant,url rows):
#: the person's entry is removed so their link no longer opens a session (formats kept as the server writes them).
SERVE_TOKENS, SERVE_LINKS = "serve-tokens.json", "links.csv"


@dataclass(frozen=True)
class Withdrawal:
    """What a withdrawal removed (counts; the audit line holds the same, without the id)."""

    sessions: int
    files: tuple[Path, ...]
    assignment_lines: int
    derived: tuple[Path, ...]


def _key(folder: Path) -> bytes:
    path = folder / KEY_FILE
    if not path.exists():
        with contextlib.suppress(FileExistsError):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
                f.flush()
                os.fsync(f.fileno())
    return path.read_text(encoding="utf-8").strip().encode()


def withdrawal_code(folder: str | Path, participant: str) -> str:
    """The code a person keeps to withdraw later (a keyed hash of their id; the key stays in the study folder, so
    the code reveals nothing and cannot be guessed from an id)."""
    digest = hmac.new(_key(Path(folder)), participant.encode(), hashlib.sha256).hexdigest()
    return digest[:12].upper()


def participant_of_code(folder: str | Path, code: str) -> str:
    """The participant whose withdrawal code ``code`` is (one line naming the folder when none is)."""
    # deferred: see _holder_folder
    from benchlab.annotations.exclusions.dataset import load_data

    data = load_data([Path(folder)])
    base = data.study.folder if data.study is not None else data.outs[0]
    people = {str(r["participant"]) for r in data.assignments()} | {s.participant for s in data.progress()}
    for person in sorted(people):
        if hmac.compare_digest(withdrawal_code(base, person), code.strip().upper()):
            return person
    raise BenchlabError("no participant of this study has that withdrawal code", base)


def withdraw_participant(folder: str | Path, participant: str) -> Withdrawal:
    """Remove ``participant``'s data from the study or output folder ``folder`` (see the module docstring)."""
    # deferred: the study loader and the session layouts load every task's session code
    from benchlab.annotations.exclusions.dataset import load_data
    from benchlab.annotations.registry import registry
    from benchlab.annotations.session.lock import SessionLock
    from benchlab.annotations.session.plan import SessionPlan
    from benchlab.annotations.session.status import FALLBACK
    from benchlab.annotations.task import ShowsSessions

    data = load_data([Path(folder)])
    base = data.study.folder if data.study is not None else data.outs[0]
    layouts = {n: t.session_layout for n, t in registry().benchmarks.items() if isinstance(t, ShowsSessions)}
    files: list[Path] = []
    locks: list[Path] = []
    sessions = 0
    for plan_path in data.plans:
        plan = SessionPlan.load(plan_path)
        if plan.participant != participant:
            continue
        sessions += 1
        out = plan_path.parent.parent
        session_files = layouts.get(plan.task, FALLBACK).files(out, plan)
        files += [p for p in (session_files.results, session_files.practice, plan_path, session_files.events)
                  if p.exists()]
        locks.append(session_files.lock)
    for out in data.outs:  # sessions that never reached a plan (a web session's consent page, a decline)
        for events in out.glob("sessions/*.events.jsonl"):
            first = _first_event(events)
            if first.get("participant") == participant and events not in files:
                files.append(events)
        for layout in {*layouts.values(), FALLBACK}:
            lock = out / "sessions" / layout.lock_pattern.replace("{p}", participant)
            if lock.exists():
                locks.append(lock)
    records = data.assignments()
    mine = [r for r in records if str(r.get("participant")) == participant]
    if not files and not mine:
        raise BenchlabError(f"participant {participant!r} is not in this study (no sessions, no assignment)",
                            data.study.assignments_path if data.study is not None else base)
    for lock in dict.fromkeys(locks):  # refuse before anything changes
        if not lock.exists():
            continue
        probe = SessionLock(lock)
        try:
            probe.acquire()
        except BenchlabError:
            raise BenchlabError(f"participant {participant!r} has a live session (its session lock is held); "
                                "withdraw after the session has ended", lock) from None
        probe.release()
    if mine and data.study is not None:
        _rewrite_without(data.study.assignments_path, participant)
    if data.study is not None:
        _drop_online_records(data.study, participant)
    for out in data.outs:
        _drop_serve_entries(out, participant)
    for path in dict.fromkeys(files):
        path.unlink(missing_ok=True)
    derived = []
    for out in {base, *data.outs}:
        for name in DERIVED:
            target = out / name
            if target.is_dir():
                shutil.rmtree(target)
                derived.append(target)
    audit = {"event": "withdrawn", "date": datetime.now(UTC).date().isoformat(), "sessions": sessions,
             "files_removed": len(set(files)), "assignment_lines": len(mine),
             "derived_removed": [d.name for d in derived], "benchlab_version": __version__}
    append_line(base / AUDIT_FILE, json.dumps(audit))
    return Withdrawal(sessions, tuple(dict.fromkeys(files)), len(mine), tuple(derived))


def _rewrite_without(path: Path, participant: str) -> None:
    """``path`` without the person's lines, replaced atomically; retried when a session started meanwhile appended
    a line (the rewrite is made from what the file holds right before it replaces it)."""
    for _attempt in range(5):
        before = path.read_bytes()
        kept = [line for line in before.decode("utf-8").splitlines(keepends=True)
                if not _is_theirs(line, participant)]
        if path.read_bytes() == before:
            atomic_write_text(path, "".join(kept))
            return
    raise BenchlabError("the file keeps changing (sessions are starting); withdraw again in a moment", path)


def _drop_online_records(study: Study, participant: str) -> None:
    """The person's lines in the online study's private logs (reservations, joins ledger, completions, the key file
    linking the pseudonym to the platform id), rewritten under the study lock: after a withdrawal nothing names the
    participant id or the platform id. A crowd joiner's withdrawal then leaves one completions line (the ``withdrew``
    code, the date and the keyed hash of the platform id, :func:`~benchlab.annotations.online.completion.
    log_withdrawal`), so ``study reconcile`` can still pay the submission."""
    folder = study.folder / PRIVATE_DIR
    if not folder.is_dir():
        return
    with locked(study.folder):
        persons = {str(r["person"]) for r in read_jsonl(folder / ONLINE_KEY_FILE)
                   if r.get("participant") == participant and r.get("person")}
        for path in sorted(folder.glob("*.jsonl")):
            if any(_is_theirs(line, participant) for line in path.read_text(encoding="utf-8").splitlines()):
                _rewrite_without(path, participant)
        if study.spec.online is not None:
            for person in sorted(persons):
                log_withdrawal(study, person_key(study.folder, person))


def _drop_serve_entries(out: Path, participant: str) -> None:
    """The person's token and link, rewritten atomically without them (other entries byte-for-byte as parsed)."""
    tokens = out / SERVE_TOKENS
    if tokens.is_file():
        data = json.loads(tokens.read_text(encoding="utf-8"))
        if isinstance(data, dict) and participant in data:
            del data[participant]
            atomic_write_text(tokens, json.dumps(data, indent=1, sort_keys=True) + "\n")
    links = out / SERVE_LINKS
    if links.is_file():
        lines = links.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [line for line in lines if line.split(",", 1)[0].strip('"') != participant]
        if len(kept) != len(lines):
            atomic_write_text(links, "".join(kept))


def _first_event(path: Path) -> dict[str, object]:
    try:
        with path.open(encoding="utf-8") as f:
            first = json.loads(f.readline() or "{}")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return first if isinstance(first, dict) else {}


def _is_theirs(line: str, participant: str) -> bool:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(record, dict) and str(record.get("participant")) == participant


class WithdrawOptions(Options):
    folder: Path = option(label="Study folder", argument=True, help="The study folder (or the sessions' output).")
    participant: str | None = option(None, label="Participant id", help="The participant who withdraws.")
    code: str | None = option(None, label="Withdrawal code", help="The withdrawal code the person kept (instead of "
                              "--participant).")


def withdraw(opts: WithdrawOptions) -> str:
    if (opts.participant is None) == (opts.code is None):
        raise BenchlabError("give --participant or --code (one of them)")
    who = opts.participant if opts.participant is not None else participant_of_code(opts.folder, opts.code or "")
    done = withdraw_participant(opts.folder, who)
    lines = [f"withdrawn: {done.sessions} session(s), {len(done.files)} file(s) removed, "
             f"{done.assignment_lines} assignment line(s) removed; audit line appended to {AUDIT_FILE}"]
    lines += [f"removed derived output {d} (rebuild it: it held the person's rows)" for d in done.derived]
    return "\n".join(lines)


WITHDRAW = Command("tool", help_of(CARDS, "withdraw"), WithdrawOptions, withdraw, name="withdraw")
