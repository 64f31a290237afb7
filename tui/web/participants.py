"""Who may open a session: the participants file, one secret token per participant, the links.

The token is the only credential a participant has, so it is unguessable (``secrets.token_urlsafe``) and kept in
the output folder (``serve-tokens.json``, private) so a restarted server gives everyone the same link. Token
creation is serialised with a file lock, because ``benchlab serve --add`` may run beside the serving process.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import json
import os
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchlab.annotations.ids import IdError, check_id
from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError

TOKENS_FILE = "serve-tokens.json"
LINKS_FILE = "links.csv"
_ID_COLUMNS = ("id", "participant", "participant_id")
#: Column spellings that name a plan option by another name (a task may call its participant list "list").
COLUMN_ALIASES = {"list": "participants"}


@dataclass(frozen=True)
class Participant:
    """One row of the participants file: the id and the plan options its extra columns set (field -> text)."""

    id: str
    options: Mapping[str, str] = field(default_factory=dict)


def read_participants(path: Path, option_names: Iterable[str]) -> list[Participant]:
    """The participants of ``path`` (a CSV with an ``id`` column; other columns name plan options).

    Every problem raises one :class:`BenchlabError` naming the file and line: a missing id column, an unknown
    column, a bad or duplicate id.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise BenchlabError("participants file not found", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchlabError(f"cannot read the participants file ({exc})", path) from None
    return parse_participants(text, path, option_names)


def parse_participants(text: str, path: Path, option_names: Iterable[str]) -> list[Participant]:
    """See :func:`read_participants` (``text`` is the file's content, ``path`` only names it in errors)."""
    known = {n.lower(): n for n in option_names}
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise BenchlabError("the participants file is empty (expected a header line with an 'id' column)", path, 1)
    rows: list[list[str]] = []
    for line_no, line in lines:  # one record per line (ids and options have no line breaks)
        try:
            rows.append(next(csv.reader([line], strict=True)))
        except csv.Error as exc:
            raise BenchlabError(f"not a CSV line ({exc})", path, line_no) from None
    header_line, header = lines[0][0], [h.strip().lower() for h in rows[0]]
    id_col = next((i for i, h in enumerate(header) if h in _ID_COLUMNS), None)
    if id_col is None:
        if len(header) == 1 and _is_id(header[0]):  # a bare list of ids, no header
            header, rows, lines, header_line = ["id"], [["id"], *rows], [(0, "id"), *lines], 0
            id_col = 0
        else:
            raise BenchlabError(f"no participant id column (expected one named {', '.join(_ID_COLUMNS)}; "
                                f"found {', '.join(header) or 'nothing'})", path, header_line)
    columns: dict[int, str] = {}
    for i, name in enumerate(header):
        if i == id_col or not name:
            continue
        field_name = known.get(COLUMN_ALIASES.get(name, name).replace("-", "_"))
        if field_name is None:
            raise BenchlabError(f"unknown column {name!r} (columns other than the id name plan options: "
                                f"{', '.join(sorted(known)) or 'none'})", path, header_line)
        columns[i] = field_name
    seen: dict[str, int] = {}
    out: list[Participant] = []
    for (line_no, _), row in zip(lines[1:], rows[1:], strict=True):
        if len(row) > len(header):
            raise BenchlabError(f"{len(row)} fields, the header has {len(header)}", path, line_no)
        row = [c.strip() for c in row] + [""] * (len(header) - len(row))
        pid = row[id_col]
        try:
            check_id(pid, "participant")
        except IdError as exc:
            raise BenchlabError(str(exc), path, line_no) from None
        if pid in seen:
            raise BenchlabError(f"participant {pid!r} is listed twice (first on line {seen[pid]})", path, line_no)
        seen[pid] = line_no
        out.append(Participant(pid, {name: row[i] for i, name in columns.items() if row[i]}))
    return out


def _is_id(text: str) -> bool:
    try:
        check_id(text, "participant")
    except IdError:
        return False
    return True


def append_participants(path: Path, ids: Sequence[str], option_names: Iterable[str]) -> list[str]:
    """Add ``ids`` (those not yet listed) to the participants file, atomically; return the ids added."""
    names = list(option_names)
    current = read_participants(path, names) if path.exists() else []
    listed = {p.id for p in current}
    added = [i for i in dict.fromkeys(ids) if i not in listed]
    for pid in added:
        try:
            check_id(pid, "participant")
        except IdError as exc:
            raise BenchlabError(f"--add: {exc}") from None
    if not added:
        return []
    text = path.read_text(encoding="utf-8-sig") if path.exists() else "id\n"
    header = next(csv.reader(io.StringIO(text.lstrip().splitlines()[0] if text.strip() else "id")))
    width = max(1, len(header))
    if text and not text.endswith("\n"):
        text += "\n"
    text += "".join(pid + "," * (width - 1) + "\n" for pid in added)
    atomic_write_text(path, text)
    return added


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f".{TOKENS_FILE}.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def load_tokens(out: Path) -> dict[str, str]:
    """Participant id -> token, as saved in ``out`` (empty when none were made yet)."""
    path = out / TOKENS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise BenchlabError(f"cannot read the saved links ({exc}); move the file away to make new links",
                            path) from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise BenchlabError("the saved links are not a participant -> token map; move the file away", path)
    return dict(data)


def ensure_tokens(out: Path, ids: Iterable[str]) -> dict[str, str]:
    """Every id's token, making (and durably saving) the missing ones; existing links never change."""
    with _locked(out):
        tokens = load_tokens(out)
        missing = [i for i in ids if i not in tokens]
        if missing:
            for pid in missing:
                tokens[pid] = secrets.token_urlsafe(24)
            path = out / TOKENS_FILE
            atomic_write_text(path, json.dumps(tokens, indent=1, sort_keys=True) + "\n")
            with contextlib.suppress(OSError):
                os.chmod(path, 0o600)
        return tokens


def link(base_url: str, token: str) -> str:
    return f"{base_url.rstrip('/')}/s/{token}"


def write_links(out: Path, participants: Sequence[Participant], tokens: Mapping[str, str], base_url: str) -> Path:
    """``links.csv`` (participant, url), written atomically and private (the links are the credentials)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["participant", "url"])
    for p in participants:
        writer.writerow([p.id, link(base_url, tokens[p.id])])
    path = out / LINKS_FILE
    atomic_write_text(path, buf.getvalue())
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)
    return path
