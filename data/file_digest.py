"""The SHA-256 of an input file, hashed once per process while the file is unchanged.

Why: one computed comparison hashed its ~19 MB of inputs twice: once where each file is read (the trials and
model files' caches by content, the read-once cache of a person's file) and again when the replay store
(:mod:`benchlab.data.command_replay`) records what the printed output was made from (~0.04 s CPU). A digest is
remembered under the file's identity and state as ``stat`` gives it (device, inode, size, modification and change
times in nanoseconds): any write, truncation, rename over it or replacement gives another key, so the file is
hashed again. Only a digest of bytes read while that state held before and after the read is remembered, so it
is always the digest of what a reader actually saw. A file modified less than :data:`RACY_NS` before it was
hashed is not remembered (as git treats "racily clean" files): a rewrite to the same size within the file
system's timestamp granularity could leave inode, size and both times as they were, so such a file is hashed
every time until it is older. The memo lives in this process only (a fresh process hashes
every file again) and is emptied when it reaches :data:`LIMIT` entries (a long-running server reads many files).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

#: Entries kept before the memo is emptied.
LIMIT = 4096
#: A file modified this recently (nanoseconds) before its hash is hashed again next time: coarser than any file
#: system's timestamp granularity.
RACY_NS = 2_000_000_000

_State = tuple[int, int, int, int, int]
_MEMO: dict[_State, str] = {}


def _state(st: os.stat_result) -> _State:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _stat(path: str | Path) -> _State | None:
    try:
        return _state(os.stat(path))
    except OSError:
        return None


def _remember(state: _State, digest: str, started_ns: int) -> None:
    """Keep ``digest`` of a file hashed from ``started_ns`` on, unless it was modified too recently for its times
    to tell a later rewrite apart."""
    if state[3] >= started_ns - RACY_NS:
        return
    if len(_MEMO) >= LIMIT:
        _MEMO.clear()
    _MEMO[state] = digest


def file_sha256(path: str | Path) -> str:
    """The hex SHA-256 of the file's bytes (``OSError`` when it cannot be read), from the memo while the file's
    state is the one it was hashed in."""
    started = time.time_ns()
    with open(path, "rb") as fh:
        before = _state(os.fstat(fh.fileno()))
        known = _MEMO.get(before)
        if known is not None:
            return known
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
        if _state(os.fstat(fh.fileno())) == before:
            _remember(before, digest, started)
    return digest


def read_with_sha256(path: str | Path, read: Callable[[], bytes]) -> tuple[bytes, str]:
    """``read()`` (the file's bytes, read by the caller's own reader with its own errors) and their hex SHA-256,
    remembered for :func:`file_sha256` when the file's state was the same before and after the read."""
    started = time.time_ns()
    before = _stat(path)
    data = read()
    known = _MEMO.get(before) if before is not None else None
    after = _stat(path)
    if known is not None and after == before:
        return data, known
    digest = hashlib.sha256(data).hexdigest()
    if before is not None and after == before:
        _remember(before, digest, started)
    return data, digest


def remembered() -> list[tuple[_State, str]]:
    """Every digest the memo holds, with the file state it was taken in (for :func:`learn` in another process)."""
    return list(_MEMO.items())


def learn(entries: list[tuple[_State, str]]) -> None:
    """Take digests another process remembered (:func:`remembered`): each is used only while its file's state is
    the one it was hashed in, as this process's own are, so a file changed since is hashed again."""
    for state, digest in entries:
        if len(_MEMO) >= LIMIT:
            _MEMO.clear()
        _MEMO[(state[0], state[1], state[2], state[3], state[4])] = digest
