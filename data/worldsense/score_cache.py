"""The printed output of a WorldSense scoring, cached by the content of every input: a repeated
``score worldsense`` on unchanged files prints from the cache without importing numpy or pandas.

Why a cache of the output and not of intermediate tables: rebuilding the tables needs numpy and the scoring
modules (and pandas for every format but the table text, see ``plain_tables.py``), which cost far more than reading
the text back. The output is a pure function of the inputs, so it is keyed
by them: the SHA-256 of the trials file's bytes, of every results file's bytes (with its path, prompting and model
name, which the warnings and tables name), the output format, benchlab's version and :data:`CACHE_VERSION`. Any
changed byte, file added or removed, or another benchlab version gives another key; a damaged or unreadable entry
is ignored (the tables are computed again), and a cache that cannot be written is simply skipped.

An entry holds the rendered text and the warnings, in the order they were given, so a cached run prints exactly
what the computing run printed (``tests/test_speed_score_cache.py`` compares the two).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchlab.data.file_digest import file_sha256
from benchlab.data.worldsense.loader import find_trials_file
from benchlab.data.worldsense.results import find_results

#: Bump when what is printed for the same inputs changes (a new table, a reworded warning).
CACHE_VERSION = "1"


@dataclass(frozen=True)
class ScoredOutput:
    """What one scoring printed: the rendered tables and the warnings given while scoring."""

    text: str
    warnings: tuple[str, ...]


def output_key(testset: Path, dirs: Sequence[Path], fmt: str, same_items: bool = False) -> str | None:
    """The cache key of scoring ``testset`` against the results under ``dirs`` in ``fmt`` (models on the people's
    tuples only with ``same_items``); ``None`` when an input cannot be found or read (the computing path then gives
    its own clear error)."""
    # deferred: the version (importlib.metadata, ~30 ms) is read only when the cache is used (not with --no-cache)
    from benchlab.data.version import __version__

    same = " same-items" if same_items else ""
    digest = hashlib.sha256(f"worldsense-score v{CACHE_VERSION} benchlab {__version__} {fmt}{same}\n".encode())
    try:
        trials = find_trials_file(testset)
        digest.update(f"trials {trials.resolve()}\n".encode())
        _hash_file(digest, trials)
        for folder in dirs:
            found = find_results(folder)
            if not found:
                return None
            for f in found:
                digest.update(f"results {f.path.resolve()}\0{f.prompting}\0{f.modelname}\n".encode())
                _hash_file(digest, f.path)
    except Exception:  # deliberately broad: any input problem is the computing path's to report
        return None
    return digest.hexdigest()


def _hash_file(digest: hashlib._Hash, path: Path) -> None:
    digest.update(bytes.fromhex(file_sha256(path)))  # hashed once per process (the scoring reads the same files)


def _entry_path(key: str) -> Path:
    # deferred: the settings (platformdirs, tempfile) load only when the cache is used, not with --no-cache
    from benchlab.data.settings import get_settings

    return get_settings().cache_dir / "worldsense" / f"score-v{CACHE_VERSION}-{key}.json"


def load_output(key: str) -> ScoredOutput | None:
    """The cached output for ``key``, or ``None`` (missing, damaged or unreadable entries are never trusted)."""
    try:
        data = json.loads(_entry_path(key).read_text(encoding="utf-8"))
        text, warnings = data["text"], data["warnings"]
        if not isinstance(text, str) or not all(isinstance(w, str) for w in warnings):
            return None
        return ScoredOutput(text, tuple(warnings))
    except Exception:  # deliberately broad: a cache entry in any bad state means "compute again"
        return None


def store_output(key: str, output: ScoredOutput) -> None:
    """Write the entry atomically; a cache folder that cannot be written is skipped (scoring still printed)."""
    path = _entry_path(key)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"text": output.text, "warnings": list(output.warnings)}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):  # the folder itself may be unusable
            tmp.unlink()


def scored_output(testset: Path, dirs: Sequence[Path], fmt: str, *, cache: bool = True,
                  on_warning: Callable[[str], None] | None = None, same_items: bool = False) -> ScoredOutput:
    """Score ``testset`` against the results under ``dirs`` and render the tables in ``fmt``, from the cache when
    every input is unchanged (warnings are passed to ``on_warning`` either way, in the same order)."""
    key = output_key(testset, dirs, fmt, same_items) if cache else None
    if key is not None:
        hit = load_output(key)
        if hit is not None:
            for message in hit.warnings:
                if on_warning is not None:
                    on_warning(message)
            return hit
    # deferred: numpy loads only when the tables must be computed (the cached path above needs neither it nor
    # pandas, which the table format does without)
    from benchlab.data.worldsense.columns import read_trial_columns
    from benchlab.data.worldsense.scoring import load_results_dirs, score_text

    text, warnings = score_text(read_trial_columns(testset, cache=cache), load_results_dirs(list(dirs), cache=cache),
                                fmt, on_warning=on_warning, same_items=same_items)
    output = ScoredOutput(text, tuple(warnings))
    # not stored if a file changed while it was scored
    if key is not None and output_key(testset, dirs, fmt, same_items) == key:
        store_output(key, output)
    return output
