"""The study folder's private part (``.online/``): the keyed-hash secret, the study token, the key file of raw
platform ids, the joins ledger (session tokens), completions, the paused flag and the admin password hash.

Results, events, plans and exports carry only the pseudonymous participant id, ``o-`` + 16 hex digits of
HMAC-SHA256(secret, platform + person): stable for one person (so a second visit finds the same session),
unlinkable without the secret. The raw ids go to exactly one file, ``.online/platform-ids.jsonl``, read only for
payment and reconciliation; no download, export or release includes ``.online/``.

The secret is created once, atomically (written to a temporary file, then hard-linked to its name, which fails if
another process won the race; the loser reads the winner's), so two servers or a server and a command started
together never hash the same person two ways.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchlab.annotations.online.platform_ids import PlatformId
from benchlab.data.atomic import append_line, atomic_write_text, fsync_dir
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import object_lines

PRIVATE_DIR = ".online"
SECRET_FILE = "secret.json"
KEY_FILE = "platform-ids.jsonl"
JOINS_FILE = "joins.jsonl"
COMPLETIONS_FILE = "completions.jsonl"
STATE_FILE = "state.json"
PASSWORD_FILE = "admin-password"
LOCK_FILE = "online.lock"


def private_dir(study_folder: Path) -> Path:
    """``.online/`` of the study, made private (0700) when first needed."""
    folder = study_folder / PRIVATE_DIR
    if not folder.is_dir():
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise BenchlabError(f"cannot create the study's private folder ({exc.strerror or exc})", folder) from exc
    return folder


def study_secret(study_folder: Path) -> dict[str, str]:
    """The study's secret key and study token, created once (atomically) on first use."""
    path = private_dir(study_folder) / SECRET_FILE
    if not path.exists():
        fresh = {"key": secrets.token_hex(32), "study_token": secrets.token_urlsafe(18)}
        tmp = path.with_name(f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, (json.dumps(fresh) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # fails when another process created the secret first: theirs is the one
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(path.parent)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BenchlabError("the study's secret cannot be read (restore it from a backup: without it returning "
                            "participants get new ids)", path) from exc
    if not isinstance(data, dict) or not isinstance(data.get("key"), str) or not isinstance(data.get("study_token"),
                                                                                           str):
        raise BenchlabError("the study's secret is not what benchlab wrote", path)
    return {"key": data["key"], "study_token": data["study_token"]}


def pseudonym(study_folder: Path, who: PlatformId) -> str:
    """The participant id results carry for ``who``: a keyed hash, the same on every visit."""
    key = bytes.fromhex(study_secret(study_folder)["key"])
    digest = hmac.new(key, f"{who.platform}\0{who.person}".encode(), hashlib.sha256).hexdigest()
    return f"o-{digest[:16]}"


def person_key(study_folder: Path, person: str) -> str:
    """The pseudonymous key of the person behind a platform id, whatever platform brought them: written as
    ``person`` in the study's assignments log, so the ``duplicate`` exclusion rule finds the same person under two
    participant ids (the same raw id through two platforms or links) without any raw id leaving the key file."""
    key = bytes.fromhex(study_secret(study_folder)["key"])
    return "p-" + hmac.new(key, f"person\0{person}".encode(), hashlib.sha256).hexdigest()[:16]


_held: dict[Path, int] = {}
_threads = threading.RLock()


@contextlib.contextmanager
def locked(study_folder: Path) -> Iterator[None]:
    """The study's online lock: joins, arm choices and completions are decided one at a time (across processes,
    ``flock``; across threads, a lock). Re-entrant within a process, so a join may record through the study."""
    key = private_dir(study_folder).resolve()
    with _threads:
        if _held.get(key):
            _held[key] += 1
            try:
                yield
            finally:
                _held[key] -= 1
            return
        with open(key / LOCK_FILE, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            _held[key] = 1
            try:
                yield
            finally:
                _held[key] = 0
                fcntl.flock(handle, fcntl.LOCK_UN)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The complete lines of one of the private logs (a torn last line, from a crash, is left out)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise BenchlabError(f"cannot read ({exc.strerror or exc})", path) from exc
    return object_lines(raw.split(b"\n"))


def append_record(study_folder: Path, name: str, record: dict[str, Any]) -> None:
    """Append one record (fsynced) to a private log, repairing a torn tail first (a line glued onto a cut one
    would be lost)."""
    path = private_dir(study_folder) / name
    with contextlib.suppress(FileNotFoundError):
        raw = path.read_bytes()
        if raw and not raw.endswith(b"\n"):
            cut = raw.rfind(b"\n") + 1
            with open(path, "r+b") as handle:
                handle.truncate(cut)
                os.fsync(handle.fileno())
    append_line(path, json.dumps(record, ensure_ascii=False))


def write_state(study_folder: Path, state: dict[str, Any]) -> None:
    atomic_write_text(private_dir(study_folder) / STATE_FILE, json.dumps(state) + "\n")


def read_state(study_folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((study_folder / PRIVATE_DIR / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
