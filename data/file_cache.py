"""A results file read and validated once per content: a comparison reads every person's file again on each
run, and validating it (pandas for a SORT CSV, pydantic for each line of a JSONL file) costs ~4-6 ms a file
(~0.13 s CPU for a lab of 22 SORT files), where loading the stored result takes ~0.3 ms.

An entry is kept per reader and file path (the path as given, since sources and warnings name it), holding the
SHA-256 of the file's bytes, a hash of benchlab's sources, and what the reader returned with the warnings it gave,
in order. It is used only while all three match: any changed byte, a moved file or an edited reader reads the
file again (and replaces the entry, so a file a live session appends to keeps one entry, not one per trial). A
file that cannot be read, or a bad file (an error), is never stored; a damaged entry or a cache that cannot be
written is ignored. The result is stored with pickle, in the user's own cache folder (the one every other benchlab
cache uses). The file's digest is taken once per process (:mod:`benchlab.data.file_digest`), so the replay store
and the other readers of the same file do not hash it again.

:func:`computed_once` is the same store for a result computed from inputs whose digests the caller already holds
(a model's tuple scores against a test set, kept by a benchmark's scoring): one entry per kind and
name, used while the given content digest and benchlab's sources are unchanged.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TypeVar, cast

from benchlab.data.command_replay import sources_digest
from benchlab.data.file_digest import file_sha256
from benchlab.data.settings import get_settings

T = TypeVar("T")

#: Bump when what is stored changes shape.
CACHE_VERSION = "1"


@cache
def _sources() -> str:
    """Benchlab's sources, hashed once per process (a long-running server reads many files)."""
    return sources_digest()


def read_once(kind: str, path: str | Path, reader: Callable[[Path, Callable[[str], None]], T],
              on_warning: Callable[[str], None] | None = None) -> T:
    """``reader(path, warn)``: the same result and the same warnings (passed to ``on_warning`` in order), from the
    cache while the file's bytes and benchlab's sources are unchanged. ``kind`` names the reader (its entries are
    its own); the result must be picklable and is never shared between calls."""
    p = Path(path)
    try:
        content = file_sha256(p)  # hashed once per process (the replay store records the same digest)
    except OSError:  # the reader gives its own clear error
        return reader(p, on_warning or _ignore)
    return computed_once(kind, f"{p}\0{p.resolve()}", content, lambda warn: reader(p, warn), on_warning)


def computed_once(kind: str, name: str, content: str, compute: Callable[[Callable[[str], None]], T],
                  on_warning: Callable[[str], None] | None = None) -> T:
    """``compute(warn)``, kept in one entry per ``kind`` and ``name`` while ``content`` (a digest of everything
    ``compute`` reads) and benchlab's sources are unchanged: the same result and the same warnings (passed to
    ``on_warning`` in order). A new ``content`` replaces the entry. The result must be picklable."""
    slot = _slot(kind, name)
    stamp = (content, _sources())
    hit = _load(slot, stamp)
    if hit is not None:
        result, warnings = hit
        for message in warnings:
            if on_warning is not None:
                on_warning(message)
        return cast(T, result)
    given: list[str] = []

    def warn(message: str) -> None:
        given.append(message)
        if on_warning is not None:
            on_warning(message)

    result = compute(warn)
    _store(slot, (stamp, result, given))
    return result


def _slot(kind: str, name: str) -> Path:
    digest = hashlib.sha256(f"{kind} v{CACHE_VERSION}\0{name}".encode()).hexdigest()[:40]
    return get_settings().cache_dir / "read-once" / f"{digest}.pkl"


def _ignore(message: str) -> None:
    """No one to tell."""


def _load(slot: Path, stamp: tuple[str, str]) -> tuple[object, list[str]] | None:
    try:
        with open(slot, "rb") as fh:
            stored_stamp, result, warnings = pickle.load(fh)
    except Exception:  # deliberately broad: a missing or damaged entry means "read the file"
        return None
    if stored_stamp != stamp or not isinstance(warnings, list):
        return None
    return result, warnings


def _store(slot: Path, entry: object) -> None:
    tmp = slot.with_name(f".{slot.name}.{os.getpid()}.tmp")
    try:
        slot.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            pickle.dump(entry, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, slot)
    except OSError:
        with contextlib.suppress(OSError):  # the folder itself may be unusable
            tmp.unlink()
