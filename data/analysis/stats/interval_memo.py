"""Bootstrap intervals remembered between comparisons, by the content of what was resampled.

Why: a comparison draws thousands of resamples for every participant, model and condition (most of its compute),
and when a lab reruns ``compare`` after one more person joined, nearly every row is the one computed before. A
percentile interval is a pure function of the values per stratum (in order), the stratum weights, the number of
resamples, the seed, the level and numpy's version (its generators draw the resamples), so it is keyed by exactly
those (SHA-256) and the stored pair is returned as computed (JSON keeps every bit of a float). Nothing is
remembered unless a caller opens :func:`remembered_intervals` (the ``compare`` commands do): library calls, the
Results screen and tests compute every time.

One file in the cache folder, read once at the start and written once at the end (atomically; a concurrent writer
may drop the other's new entries, which only means computing them again), holding at most :data:`MAX_ENTRIES`
(oldest dropped first). A damaged file is ignored. The cache folder is safe to delete.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Hashable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path

import numpy as np

from benchlab.data.analysis.stats.intervals_ahead import helper_open

#: Bump when the bootstrap's draws change (a new sampling scheme), so old intervals are never returned.
MEMO_VERSION = "1"
MAX_ENTRIES = 50_000

_memo: ContextVar[dict[str, list[float]] | None] = ContextVar("interval_memo", default=None)


def interval_key(x: np.ndarray, groups: Mapping[Hashable, np.ndarray], weights: Mapping[Hashable, float],
                 n_boot: int, seed: int, level: float) -> str | None:
    """The content key of one stratified percentile bootstrap, or ``None`` when neither a memo nor a helper drawing
    ahead (:mod:`benchlab.data.analysis.stats.intervals_ahead`, which finds its draws by this key) is open."""
    if _memo.get() is None and not helper_open():
        return None
    # numpy's version too: its generators' streams may change between releases, and then so do the intervals
    digest = hashlib.sha256(f"boot v{MEMO_VERSION} numpy {np.__version__} {n_boot} {seed} {level!r}\n".encode())
    for k, idx in groups.items():
        vals = np.ascontiguousarray(x[idx], dtype=float)
        digest.update(f"{weights[k]!r} {vals.size}\n".encode())
        digest.update(vals.tobytes())
    return digest.hexdigest()


def recall(key: str | None) -> tuple[float, float] | None:
    memo = _memo.get()
    if key is None or memo is None:
        return None
    hit = memo.get(key)
    return (float(hit[0]), float(hit[1])) if hit is not None else None


def keep(key: str | None, interval: tuple[float, float]) -> None:
    memo = _memo.get()
    if key is not None and memo is not None:
        memo[key] = [interval[0], interval[1]]


def _load(path: Path) -> dict[str, list[float]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != MEMO_VERSION or not isinstance(data.get("intervals"), dict):
            return {}
        return {str(k): [float(v[0]), float(v[1])] for k, v in data["intervals"].items()}
    except Exception:  # deliberately broad: a missing or damaged memo only means computing again
        return {}


def _store(path: Path, memo: dict[str, list[float]]) -> None:
    entries = list(memo.items())[-MAX_ENTRIES:]
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"version": MEMO_VERSION, "intervals": dict(entries)}, allow_nan=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):  # an unusable cache folder: nothing remembered, nothing lost
            tmp.unlink()


def memo_path() -> Path:
    # deferred: the settings module loads only when a memo is opened
    from benchlab.data.settings import get_settings

    return get_settings().cache_dir / "analysis" / f"bootstrap-intervals-v{MEMO_VERSION}.json"


@contextlib.contextmanager
def remembered_intervals(path: Path | None = None) -> Iterator[None]:
    """Within this block, :func:`benchlab.data.analysis.stats.bootstrap_ci` returns intervals it computed before
    (in any earlier block) for the same content, and remembers new ones at the end of the block."""
    where = path or memo_path()
    memo = _load(where)
    before = len(memo)
    token = _memo.set(memo)
    try:
        yield
    finally:
        _memo.reset(token)
        if len(memo) != before:
            _store(where, memo)

