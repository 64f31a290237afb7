"""A cached, validated index of a WorldSense test set, so that a session starts without loading 87 048 trials.

Why: planning a session needs only each tuple's id, (problem, size) cell, option count and member Keys; showing
it needs the ~200 trials the plan names. Loading and validating the whole test set for every participant cost
~5 CPU-seconds and ~300 MiB each (issue 24). The index is built once per test-set content, with every trial
validated exactly as :func:`~benchlab.data.worldsense.loader.load_trials` does (same errors, same duplicate-Key
refusal), and stored under the user cache folder as:

* ``trials.jsonl``: the published lines, decompressed, read back by byte offset one trial at a time;
* small binary arrays (``array`` module, native byte order): Keys, line offsets, a CRC-32 per line, the rows of
  each tuple, each tuple's cell and option count, and the Keys' sort order for lookups;
* ``tuples.txt``: the tuple ids; ``meta.json``: version, the source's SHA-256 and a SHA-256 of every small file.

Validation when opened: the source file's SHA-256 names the index (a changed file gets a new index, never a
stale one); the small files are hashed against ``meta.json``; each trial read is checked against its line's
CRC-32 and Key. A damaged index is rebuilt with a warning on stderr. Only the standard library and pydantic are
used, so opening one costs milliseconds and no numpy or pandas import.

:func:`shared_index` keeps one open index per test set per process: every session of a server uses it.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
import threading
import zlib
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import validate
from benchlab.data.settings import get_settings
from benchlab.data.text_io import iter_lines
from benchlab.data.worldsense.loader import find_trials_file
from benchlab.data.worldsense.records import Trial

INDEX_VERSION = "1"
_TRIALS = "trials.jsonl"
_TIDS = "tuples.txt"
_META = "meta.json"
#: name -> array typecode, every small array file the index holds.
_ARRAYS = {
    "keys": "q",  # Key of each row (file order)
    "offsets": "q",  # byte offset of each row's line in trials.jsonl, plus the end
    "crc": "L",  # CRC-32 of each row's line
    "by_key": "l",  # rows sorted by Key (for lookups)
    "members": "l",  # rows grouped by tuple (tuples in order of first appearance, rows in file order)
    "tuple_start": "l",  # where each tuple's rows start in ``members``, plus the end
    "tuple_problem": "l",  # index into meta["problems"]
    "tuple_size": "l",
    "tuple_options": "l",  # len(expectedresp): a tuple is complete when it has that many rows
    "row_tuple": "l",  # the tuple of each row
}

Cell = tuple[str, int]


class IndexDamaged(Exception):
    """The stored index does not match what it says it holds (it is rebuilt, never trusted)."""


def index_folder() -> Path:
    """Where test-set indexes are kept (safe to delete at any time: they are rebuilt when needed)."""
    return get_settings().cache_dir / "worldsense"


def _warn(message: str) -> None:
    sys.stderr.write(f"benchlab: warning: {message}\n")
    sys.stderr.flush()


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes (read in blocks: the published test set is 3.3 MB, ~5 ms)."""
    h = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class _Arrays:
    keys: array[int]
    offsets: array[int]
    crc: array[int]
    by_key: array[int]
    members: array[int]
    tuple_start: array[int]
    tuple_problem: array[int]
    tuple_size: array[int]
    tuple_options: array[int]
    row_tuple: array[int]


class TrialIndex:
    """An opened index: the plan's view of every tuple, and trials read one at a time by Key.

    Thread-safe for reading (a server's sessions share one): each read opens its own handle position under a lock.
    """

    def __init__(self, folder: Path, source: Path, meta: dict[str, object], arrays: _Arrays,
                 tuple_ids: list[str]) -> None:
        self.folder = folder
        self.source = source
        self.digest = str(meta["source_sha256"])
        self._problems = [str(p) for p in meta["problems"]]  # type: ignore[attr-defined]
        self._a = arrays
        self._tuple_ids = tuple_ids
        self._tuple_row: dict[str, int] | None = None
        self._cells: dict[Cell, tuple[str, ...]] | None = None
        self._trials: dict[int, Trial] = {}
        self._lock = threading.Lock()
        self._handle: BinaryIO | None = None

    # -- sizes -----------------------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._a.keys)

    @property
    def n_tuples(self) -> int:
        return len(self._tuple_ids)

    # -- what a plan reads -----------------------------------------------------------------------------------------

    def cells(self) -> dict[Cell, list[str]]:
        """The complete tuples of each (problem, size) cell (cells in order of first appearance in the file, each
        cell's tuple ids sorted: the plan sorts them first, and sorting a sorted list is nearly free). Fresh lists of
        a table worked out once: a server plans every participant from it."""
        if self._cells is None:
            self._cells = {cell: tuple(sorted(tids)) for cell, tids in self._read_cells().items()}
        return {cell: list(tids) for cell, tids in self._cells.items()}

    def _read_cells(self) -> dict[Cell, list[str]]:
        a = self._a
        problems = self._problems
        cells: dict[Cell, list[str]] = {}
        start = a.tuple_start
        for i, tid in enumerate(self._tuple_ids):
            if start[i + 1] - start[i] != a.tuple_options[i]:
                continue
            cell = (problems[a.tuple_problem[i]], a.tuple_size[i])
            found = cells.get(cell)
            if found is None:
                cells[cell] = [tid]
            else:
                found.append(tid)
        return cells

    def tuple_keys(self, tuple_id: str) -> list[int]:
        """The Keys of a tuple's trials, in file order."""
        if self._tuple_row is None:
            self._tuple_row = {tid: i for i, tid in enumerate(self._tuple_ids)}
        i = self._tuple_row[tuple_id]
        a = self._a
        return [a.keys[r] for r in a.members[a.tuple_start[i]:a.tuple_start[i + 1]]]

    def _row(self, key: int) -> int | None:
        a = self._a
        lo, hi = 0, len(a.by_key)
        # bisect over the Key-sorted rows without materialising the sorted Keys
        while lo < hi:
            mid = (lo + hi) // 2
            if a.keys[a.by_key[mid]] < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(a.by_key) and a.keys[a.by_key[lo]] == key:
            return a.by_key[lo]
        return None

    def row_of(self, key: int) -> int | None:
        """The row (0-based, file order) of the trial with this Key (``None`` when the test set has no such Key)."""
        return self._row(key)

    def tuple_of(self, key: int) -> str | None:
        """The tuple id of the trial with this Key (``None`` when the test set has no such Key)."""
        row = self._row(key)
        if row is None:
            return None
        return self._tuple_ids[self._a.row_tuple[row]]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, int) and self._row(key) is not None

    # -- trials, read when a session needs them ----------------------------------------------------------------

    def trial(self, key: int) -> Trial | None:
        """The validated trial with this Key, read from the index (``None`` when there is none).

        A stored line that does not match its checksum or its Key means the index was damaged after it was
        opened: it is rebuilt (with a warning) and the trial read again.
        """
        try:
            return self._read_trial(key)
        except IndexDamaged as exc:
            self._heal(str(exc))
        try:
            return self._read_trial(key)
        except IndexDamaged as exc:
            raise BenchlabError(f"the cached index is damaged again after a rebuild ({exc})", self.folder) from exc

    def _heal(self, reason: str) -> None:
        """Rebuild the index files from the source and take over the fresh arrays (same content hash)."""
        with self._lock:
            self._close_handle()
            if file_digest(self.source) != self.digest:
                raise BenchlabError("the test set changed while a session was using it; start the session again",
                                    self.source)
            _warn(f"the cached index of {self.source} is damaged ({reason}); rebuilding it in {self.folder}")
            shutil.rmtree(self.folder, ignore_errors=True)
            _build(self.source, self.digest, self.folder)
            fresh = _read(self.folder, self.source, self.digest)
            self._a, self._tuple_ids, self._problems = fresh._a, fresh._tuple_ids, fresh._problems
            self._tuple_row = None
            self._trials.clear()

    def _read_trial(self, key: int) -> Trial | None:
        with self._lock:
            cached = self._trials.get(key)
            if cached is not None:
                return cached
            row = self._row(key)
            if row is None:
                return None
            a = self._a
            start, end = a.offsets[row], a.offsets[row + 1]
            try:
                if self._handle is None:
                    self._handle = (self.folder / _TRIALS).open("rb")
                self._handle.seek(start)
                raw = self._handle.read(end - start)
            except OSError as exc:
                raise IndexDamaged(f"cannot read {self.folder / _TRIALS}: {exc}") from exc
            if len(raw) != end - start or zlib.crc32(raw) != a.crc[row]:
                raise IndexDamaged(f"line {row + 1} of {self.folder / _TRIALS} does not match its checksum")
            try:
                trial = Trial.model_validate(json.loads(raw))
            except ValueError as exc:
                raise IndexDamaged(f"line {row + 1} of {self.folder / _TRIALS} is not a trial ({exc})") from exc
            if trial.Key != key:
                raise IndexDamaged(f"line {row + 1} of {self.folder / _TRIALS} holds Key {trial.Key}, not {key}")
            self._trials[key] = trial
            return trial

    def iter_trials(self) -> Iterator[Trial]:
        """Every trial in file order (reads the whole index: for checks and tests, not for sessions)."""
        for key in self._a.keys:
            trial = self.trial(key)
            assert trial is not None
            yield trial

    def close(self) -> None:
        with self._lock:
            self._close_handle()

    def _close_handle(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


# -- opening and building ------------------------------------------------------------------------------------------


def open_index(path: str | Path, *, cache_dir: Path | None = None, digest: str | None = None) -> TrialIndex:
    """The index of a test set (folder or trials file): opened when one matches the file's content, else built.

    A damaged index is rebuilt with a warning. Errors in the test set itself are the loader's
    (:class:`~benchlab.data.errors.BenchlabError` naming file and line). ``digest``: the file's SHA-256 when the
    caller has just computed it.
    """
    source = find_trials_file(path)
    digest = digest or file_digest(source)
    folder = (cache_dir or index_folder()) / f"index-v{INDEX_VERSION}-{digest}"
    if folder.is_dir():
        try:
            return _read(folder, source, digest)
        except (IndexDamaged, OSError, ValueError, KeyError, TypeError) as exc:
            _warn(f"the cached index of {source} is damaged ({exc}); rebuilding it in {folder}")
            shutil.rmtree(folder, ignore_errors=True)
    try:
        with _build_lock(folder):
            if not folder.is_dir():  # else another process built it while this one waited
                _build(source, digest, folder)
    except OSError as exc:
        # A read-only or full cache folder must not stop a session: index into a private temporary folder.
        _warn(f"cannot write the index cache in {folder.parent} ({exc.strerror or exc}); using a temporary one")
        private = Path(tempfile.mkdtemp(prefix="benchlab-worldsense-index-"))
        atexit.register(shutil.rmtree, private, True)
        folder = private / folder.name
        _build(source, digest, folder)
    return _read(folder, source, digest)


def built_text(source: Path, digest: str, *, cache_dir: Path | None = None) -> bytes | None:
    """The decompressed text of ``source`` from its index when one was already built (by a session, a server or
    an earlier call): every line checked against its CRC-32, the index's small files against their checksums.
    ``None`` when there is no such index or anything does not match; nothing is built or repaired here.

    Why: decompressing the published test set costs ~3 CPU-seconds, most of a first scoring on one core; the
    index holds the same bytes, already validated trial by trial when it was built.
    """
    folder = (cache_dir or index_folder()) / f"index-v{INDEX_VERSION}-{digest}"
    if not folder.is_dir():
        return None
    try:
        index = _read(folder, source, digest)
        text = (folder / _TRIALS).read_bytes()
    except (IndexDamaged, OSError, ValueError, KeyError, TypeError):
        return None
    offsets, crcs = index._a.offsets, index._a.crc
    view = memoryview(text)
    crc32 = zlib.crc32
    for row in range(len(crcs)):
        if crc32(view[offsets[row]:offsets[row + 1]]) != crcs[row]:
            return None
    return text


@contextlib.contextmanager
def _build_lock(folder: Path) -> Iterator[None]:
    """One builder per index across processes: 20 participants opening links at once on a fresh cache wait for
    the first build (seconds) instead of each spending the CPU on their own."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f".{folder.name}.lock").open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _read(folder: Path, source: Path, digest: str) -> TrialIndex:
    meta = json.loads((folder / _META).read_text(encoding="utf-8"))
    if meta.get("version") != INDEX_VERSION or meta.get("source_sha256") != digest:
        raise IndexDamaged("its description names another version or source")
    hashes = meta["files"]
    loaded: dict[str, array[int]] = {}
    for name, code in _ARRAYS.items():
        raw = _checked_bytes(folder / f"{name}.bin", hashes)
        values = array(code)
        values.frombytes(raw)
        loaded[name] = values
    tids_raw = _checked_bytes(folder / _TIDS, hashes)
    tuple_ids = tids_raw.decode("utf-8").split("\n") if tids_raw else []
    arrays = _Arrays(**loaded)
    n, t = int(meta["trials"]), int(meta["tuples"])
    sizes = {"keys": n, "offsets": n + 1, "crc": n, "by_key": n, "members": n, "tuple_start": t + 1,
             "tuple_problem": t, "tuple_size": t, "tuple_options": t, "row_tuple": n}
    if len(tuple_ids) != t or any(len(loaded[k]) != v for k, v in sizes.items()):
        raise IndexDamaged("its arrays do not have the sizes its description gives")
    if (folder / _TRIALS).stat().st_size != arrays.offsets[n]:
        raise IndexDamaged(f"{_TRIALS} does not have the size its offsets give")
    return TrialIndex(folder, source, meta, arrays, tuple_ids)


def _checked_bytes(path: Path, hashes: dict[str, str]) -> bytes:
    raw = path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != hashes.get(path.name):
        raise IndexDamaged(f"{path.name} does not match its checksum")
    return raw


def _build(source: Path, digest: str, folder: Path) -> None:
    """Validate every trial (the loader's rules and errors) and write the index atomically (a whole folder)."""
    keys: array[int] = array("q")
    offsets: array[int] = array("q", [0])
    crcs: array[int] = array("L")
    seen: dict[int, int] = {}
    rows_of: dict[str, list[int]] = {}
    tuple_info: dict[str, tuple[str, int, int]] = {}
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.parent / f".{folder.name}.{os.getpid()}.{threading.get_ident()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        with (tmp / _TRIALS).open("wb") as out:
            position = 0
            for lineno, text, _complete in iter_lines(source):
                if not text.strip():
                    continue
                try:
                    obj = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise BenchlabError(f"not valid JSON ({exc.msg}, column {exc.colno})", source, lineno) from exc
                if not isinstance(obj, dict):
                    raise BenchlabError(f"expected a JSON object, found {type(obj).__name__}", source, lineno)
                trial = validate(Trial, obj, source, lineno)
                first = seen.setdefault(trial.Key, lineno)
                if first != lineno:
                    raise BenchlabError(f"duplicate Key {trial.Key} (first on line {first})", source, lineno)
                raw = text.lstrip("\ufeff").rstrip("\r\n").encode("utf-8") + b"\n"
                out.write(raw)
                position += len(raw)
                rows_of.setdefault(trial.tuple_ID, []).append(len(keys))
                tuple_info.setdefault(trial.tuple_ID, (trial.problemname, trial.problemsize,
                                                       len(trial.expectedresp)))
                keys.append(trial.Key)
                offsets.append(position)
                crcs.append(zlib.crc32(raw))
            out.flush()
            os.fsync(out.fileno())
        if not keys:
            raise BenchlabError("the trials file is empty", source)
        problems = sorted({info[0] for info in tuple_info.values()})
        code = {p: i for i, p in enumerate(problems)}
        members: array[int] = array("l")
        starts: array[int] = array("l", [0])
        t_problem, t_size, t_options = array("l"), array("l"), array("l")
        row_tuple = array("l", bytes(len(keys) * array("l").itemsize))
        for t, (tid, rows) in enumerate(rows_of.items()):
            members.extend(rows)
            for r in rows:
                row_tuple[r] = t
            starts.append(len(members))
            problem, size, options = tuple_info[tid]
            t_problem.append(code[problem])
            t_size.append(size)
            t_options.append(options)
        by_key = array("l", sorted(range(len(keys)), key=keys.__getitem__))
        arrays = {"keys": keys, "offsets": offsets, "crc": crcs, "by_key": by_key, "members": members,
                  "tuple_start": starts, "tuple_problem": t_problem, "tuple_size": t_size,
                  "tuple_options": t_options, "row_tuple": row_tuple}
        hashes: dict[str, str] = {}
        for name, values in arrays.items():
            raw = values.tobytes()
            (tmp / f"{name}.bin").write_bytes(raw)
            hashes[f"{name}.bin"] = hashlib.sha256(raw).hexdigest()
        tids = "\n".join(rows_of).encode("utf-8")
        (tmp / _TIDS).write_bytes(tids)
        hashes[_TIDS] = hashlib.sha256(tids).hexdigest()
        meta = {"version": INDEX_VERSION, "source": str(source), "source_sha256": digest, "trials": len(keys),
                "tuples": len(rows_of), "problems": problems, "files": hashes}
        (tmp / _META).write_text(json.dumps(meta, indent=1), encoding="utf-8")
        try:
            os.replace(tmp, folder)
        except OSError:
            if not folder.is_dir():  # another process built it first: theirs is used, ours dropped
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- one index per test set per process ------------------------------------------------------------------------

_SHARED: dict[tuple[str, str, str], TrialIndex] = {}
_SHARED_LOCK = threading.Lock()


def shared_index(path: str | Path) -> TrialIndex:
    """The process's one index of this test set (folder or trials file), opened or built on first use.

    Every session of a process (all participants of ``benchlab serve``) plans and reads its trials from the same
    object. The file's content hash (~3 ms for the published test set) is recomputed whenever the file's status
    changes (inode, size, modification or change time: any write or replacement changes its ctime), so an edited
    test set gets a fresh index and an unchanged one costs one ``stat`` per session.
    """
    source = find_trials_file(path).resolve()
    digest = _digest_of(source)
    where = index_folder()
    with _SHARED_LOCK:
        found = _SHARED.get((str(source), digest, str(where)))
        if found is None:
            found = open_index(source, cache_dir=where, digest=digest)
            _SHARED[(str(source), digest, str(where))] = found
        return found


_DIGESTS: dict[tuple[str, int, int, int, int, int], str] = {}


def _digest_of(source: Path) -> str:
    """:func:`file_digest`, remembered for the file's current status (see :func:`shared_index`)."""
    st = source.stat()
    key = (str(source), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    with _SHARED_LOCK:
        found = _DIGESTS.get(key)
    if found is None:
        found = file_digest(source)
        with _SHARED_LOCK:
            _DIGESTS[key] = found
    return found


def forget_shared_indexes() -> None:
    """Close and forget every shared index (tests; a server that reloads its data)."""
    with _SHARED_LOCK:
        for index in _SHARED.values():
            index.close()
        _SHARED.clear()
        _DIGESTS.clear()
