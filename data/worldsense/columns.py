"""Fast columnar reading of the two WorldSense formats, for scoring.

Scoring needs six trial fields, not the 87k validated records, and results files are plain ``Key``/``resp``
pairs; pyarrow's JSON reader (explicit schema, so ``resp`` stays a string) reads them in milliseconds. Any
file the fast path does not accept is re-read line by line with the validating readers, which either accept it
or raise a :class:`BenchlabError` naming the file and line. Decoded trial columns are cached under the user
cache folder, keyed by the SHA-256 of the file's bytes, so a changed file is never served stale.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from benchlab.data.errors import BenchlabError, read_bytes
from benchlab.data.file_digest import read_with_sha256
from benchlab.data.worldsense.loader import find_trials_file
from benchlab.data.worldsense.rules import GOLD_OBFUSCATION
from benchlab.data.worldsense.trial_decode import decoded_runs, decoded_table
from benchlab.data.worldsense.trial_scan import scan_trials

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from benchlab.data.worldsense.records import Trial

CACHE_VERSION = "2"  # 2: entries are made only from files whose every byte is UTF-8


def _codes(values: Sequence[str] | np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Integer codes (order of first appearance) and the distinct values."""
    seen: dict[str, int] = {}
    codes = np.fromiter((seen.setdefault(str(v), len(seen)) for v in values), dtype=np.int32, count=len(values))
    return codes, list(seen)


@dataclass(frozen=True)
class TrialColumns:
    """The scoring view of a test set: one entry per trial, in file order, as integer arrays.

    Strings are stored once (``*_names``) and referred to by code, so scoring never compares strings per row.
    ``options_names`` are the answer options of a trial joined by ``"|"``; ``gold`` is de-obfuscated.
    """

    key: np.ndarray
    tuple_code: np.ndarray
    tuple_names: list[str]
    problem_code: np.ndarray
    problem_names: list[str]
    size: np.ndarray
    options_code: np.ndarray
    options_names: list[str]
    gold_code: np.ndarray
    gold_names: list[str]
    source: Path | None = None
    name: str = "trials"
    #: The SHA-256 of the trials file these columns were decoded from (set by :func:`read_trial_columns` when it
    #: caches by content; ``None`` for columns made otherwise): what caches of results scored against them key on.
    content_sha256: str | None = None

    def __len__(self) -> int:
        return len(self.key)

    @classmethod
    def from_values(
        cls, key: np.ndarray, tuple_id: Sequence[str] | np.ndarray, problemname: Sequence[str] | np.ndarray,
        problemsize: np.ndarray, options: Sequence[str] | np.ndarray, gold: Sequence[str] | np.ndarray,
        source: Path | None = None, name: str = "trials",
    ) -> TrialColumns:
        t_code, t_names = _codes(tuple_id)
        p_code, p_names = _codes(problemname)
        o_code, o_names = _codes(options)
        g_code, g_names = _codes(gold)
        return cls(np.asarray(key, dtype=np.int64), t_code, t_names, p_code, p_names,
                   np.asarray(problemsize, dtype=np.int64), o_code, o_names, g_code, g_names, source, name)

    @property
    def frame(self) -> pd.DataFrame:
        """The same columns as a DataFrame (Key int64), for inspection."""
        # deferred: pandas loads only when `frame` runs (data.worldsense.scoring loads this module without it)
        import pandas as pd

        return pd.DataFrame(
            {
                "Key": self.key,
                "tuple_ID": np.asarray(self.tuple_names, dtype=object)[self.tuple_code],
                "problemname": np.asarray(self.problem_names, dtype=object)[self.problem_code],
                "problemsize": self.size,
                "expectedresp": np.asarray(self.options_names, dtype=object)[self.options_code],
                "goldresp": np.asarray(self.gold_names, dtype=object)[self.gold_code],
            }
        )

    def save(self, path: Path) -> None:
        """Write as an ``.npz`` (no pickle: names are stored as one NUL-separated UTF-8 string)."""
        arrays: dict[str, np.ndarray] = {
            "key": self.key, "tuple_code": self.tuple_code, "problem_code": self.problem_code, "size": self.size,
            "options_code": self.options_code, "gold_code": self.gold_code,
        }
        for label in ("tuple_names", "problem_names", "options_names", "gold_names"):
            names: list[str] = getattr(self, label)
            arrays[label] = np.frombuffer("\0".join(names).encode("utf-8"), dtype=np.uint8)
        with open(path, "wb") as handle:
            np.savez(handle, **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path, source: Path | None, name: str, content_sha256: str | None = None) -> TrialColumns:
        with np.load(path, allow_pickle=False) as data:
            names = {
                label: bytes(data[label]).decode("utf-8").split("\0")
                for label in ("tuple_names", "problem_names", "options_names", "gold_names")
            }
            return cls(
                data["key"], data["tuple_code"], names["tuple_names"], data["problem_code"], names["problem_names"],
                data["size"], data["options_code"], names["options_names"], data["gold_code"], names["gold_names"],
                source, name, content_sha256,
            )


@dataclass
class ResultColumns:
    """One results file as columns: Keys (int64) and answer codes into ``resp_values``, plus the two names."""

    prompting: str
    modelname: str
    keys: np.ndarray
    resp_code: np.ndarray
    resp_values: list[str]
    source: Path | None = None
    notes: list[str] = field(default_factory=list)
    #: The SHA-256 of the file read, for a large file cached by content (a model's run in the published form, see
    #: :func:`read_result_columns`); ``None`` otherwise. The tuple scores of such a file are kept by it.
    content_sha256: str | None = None

    @classmethod
    def from_pairs(
        cls, prompting: str, modelname: str, keys: Sequence[int] | np.ndarray, resps: Sequence[str] | np.ndarray,
        source: Path | None = None, notes: list[str] | None = None,
    ) -> ResultColumns:
        codes, values = _codes(resps) if len(resps) else (np.zeros(0, dtype=np.int32), [])
        return cls(prompting, modelname, np.asarray(keys, dtype=np.int64), codes, values, source, notes or [])

    @property
    def resps(self) -> np.ndarray:
        return np.asarray(self.resp_values, dtype=object)[self.resp_code] if len(self.resp_code) else np.zeros(
            0, dtype=object)

    @property
    def label(self) -> str:
        return str(self.source) if self.source is not None else f"{self.prompting}___{self.modelname}"


# --------------------------------------------------------------------------------------------- trials


def trial_columns(trials: Sequence[Trial], name: str = "trials") -> TrialColumns:
    """Scoring view of already loaded :class:`Trial` records (e.g. a session's subset)."""
    keys = np.fromiter((t.Key for t in trials), dtype=np.int64, count=len(trials))
    _check_unique(keys, None)
    return TrialColumns.from_values(
        keys, [t.tuple_ID for t in trials], [t.problemname for t in trials],
        np.fromiter((t.problemsize for t in trials), dtype=np.int64, count=len(trials)),
        ["|".join(t.expectedresp) for t in trials], [t.goldresp for t in trials], name=name,
    )


def _check_unique(keys: np.ndarray, source: Path | None) -> None:
    ordered = np.sort(keys)
    dup = ordered[1:][ordered[1:] == ordered[:-1]]
    if len(dup):
        raise BenchlabError(f"duplicate Key {int(dup[0])} in the trials", source)


def read_trial_columns(path: str | Path, *, cache: bool = True) -> TrialColumns:
    """Scoring view of a test set (folder or trials file), from the cache when the file is unchanged."""
    file = find_trials_file(path)
    name = file.parent.name
    raw, digest = read_with_sha256(file, lambda: read_bytes(file, "a trials file"))
    cache_file = _cache_path(digest) if cache else None
    if cache_file is not None and cache_file.exists():
        try:
            return TrialColumns.load(cache_file, file, name, digest)
        except Exception:  # a damaged cache entry is rebuilt, never trusted
            cache_file.unlink(missing_ok=True)
    # the decompressed text of an index a session or server already built for this content (``--no-cache``:
    # decompress anyway)
    text = _indexed_text(file, digest) if cache and file.suffix == ".bz2" else None
    columns = _fast_trials(file, raw, name, text)
    if columns is None:
        # The validating reader raises a precise error (file + line) or accepts the file.
        # deferred: pydantic loads only for a file the fast reader declines
        from benchlab.data.worldsense.loader import load_trials

        columns = trial_columns(load_trials(file), name=name)
        columns = TrialColumns(**{**columns.__dict__, "source": file})
    if cache_file is None:
        return columns
    _store(cache_file, columns)
    return replace(columns, content_sha256=digest)


def cache_folder() -> Path:
    """Where decoded trial columns are cached (safe to delete at any time)."""
    # deferred: the settings (platformdirs, tempfile) load only when a cache is used, not with --no-cache
    from benchlab.data.settings import get_settings

    return get_settings().cache_dir / "worldsense"


def _cache_path(digest: str) -> Path:
    return cache_folder() / f"trials-v{CACHE_VERSION}-{digest}.npz"


def _store(cache_file: Path, columns: TrialColumns) -> None:
    """Write the cache entry atomically; a cache that cannot be written is simply skipped."""
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_name(f".{cache_file.name}.{os.getpid()}.tmp")
        columns.save(tmp)
        os.replace(tmp, cache_file)
    except OSError:
        pass


def _option_combinations(column: Any) -> tuple[np.ndarray, list[str]] | None:
    """Codes of each trial's option list (joined by "|"), from the list column's offsets and values.

    (Arrow's compute functions would import pandas; this keeps the reader light.)
    """
    # deferred: pyarrow loads only when `_option_combinations` runs (data.worldsense.scoring loads this module without
    # it)
    import pyarrow as pa

    lists = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if lists.null_count:
        return None
    offsets = arrow_numbers(lists.offsets).astype(np.int64)
    # the values of these lists alone (``flatten()`` would import pyarrow.compute)
    values = lists.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    offsets -= offsets[0]
    if values.null_count:
        return None
    encoded = dictionary_encode(values)
    value_codes = arrow_numbers(encoded.indices).astype(np.int64)
    value_names = [str(v) for v in encoded.dictionary.to_pylist()]
    return _combine_options(offsets, value_codes, value_names)


def _combine_options(offsets: np.ndarray, value_codes: np.ndarray,
                     value_names: list[str]) -> tuple[np.ndarray, list[str]] | None:
    """Codes of each trial's option list from the lists' ``offsets`` (trial i's options are
    ``value_codes[offsets[i]:offsets[i + 1]]``, codes into ``value_names``); ``None`` for an empty list."""
    lengths = np.diff(offsets)
    if len(lengths) == 0 or (lengths < 1).any():
        return None
    width = int(lengths.max())
    base = len(value_names) + 1
    if base**width >= 2**62:
        return None  # (thousands of options per trial: the careful reader handles it)
    # One integer per list, digits (code + 1) in base `base`, first option most significant and 0 for "no option":
    # integers order like the padded lists, and a 1-D unique is several times cheaper than unique(axis=0).
    position = np.arange(len(value_codes)) - np.repeat(offsets[:-1], lengths)
    digits = (value_codes + 1) * base ** (width - 1 - position)
    combined = np.add.reduceat(digits, offsets[:-1])  # every list has >= 1 option, so the offsets all differ
    combos, codes = np.unique(combined, return_inverse=True)
    names = []
    for combo in combos.tolist():
        places = []
        for _ in range(width):
            combo, place = divmod(combo, base)
            places.append(place)
        names.append("|".join(value_names[d - 1] for d in reversed(places) if d > 0))
    return codes.astype(np.int32).ravel(), names


def dictionary_encode(array: pa.Array) -> pa.DictionaryArray:
    """``array.dictionary_encode()`` without importing ``pyarrow.compute``, whose ~300 generated wrappers cost
    ~45 ms of a first scoring run (the kernel itself takes a few ms); the public module where the private one is
    missing."""
    try:
        # deferred: pyarrow's compute kernels load only when a column is encoded
        from pyarrow._compute import call_function
    except ImportError:  # pragma: no cover - a pyarrow without the private module
        return array.dictionary_encode()
    return call_function("dictionary_encode", [array])


def arrow_numbers(column: Any) -> np.ndarray:
    """A null-free numeric arrow column as a numpy copy, read from its buffer.

    (``to_numpy()`` would import pandas, ~140 MB, just to check for it.)
    """
    # deferred: pyarrow loads only when `arrow_numbers` runs (data.worldsense.scoring loads this module without it)
    import pyarrow as pa

    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    dtype = np.dtype(str(array.type))  # "int64", "int32", ...: the same names in both libraries
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize).copy()


def _gold_column(table: pa.Table) -> tuple[pa.ChunkedArray, bool] | None:
    """The gold answers and whether they are obfuscated: exactly one of the two gold fields on every line."""
    obf, plain = table.column("goldresp_obfusc"), table.column("goldresp")
    if obf.null_count == 0 and plain.null_count == len(table):
        return obf, True
    if plain.null_count == 0 and obf.null_count == len(table):
        return plain, False
    return None


def _encode(column: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """Dictionary codes and the distinct strings of a string column."""
    encoded = dictionary_encode(column.combine_chunks())
    return arrow_numbers(encoded.indices).astype(np.int32), [str(v) for v in encoded.dictionary.to_pylist()]


def _indexed_text(file: Path, digest: str) -> bytes | None:
    """:func:`~benchlab.data.worldsense.trial_index.built_text` of ``file`` (its lines are checked against the
    CRCs of an index whose every trial was validated, so they need no UTF-8 pass again)."""
    # deferred: the index module loads only when a test set is decoded, not with the scoring view
    from benchlab.data.worldsense.trial_index import built_text

    return built_text(file, digest)


def _fast_trials(file: Path, raw: bytes, name: str, text: bytes | None = None) -> TrialColumns | None:
    """Decode with the compiled scanner, else pyarrow (from ``text``, the decompressed file, when given); ``None``
    when anything looks off (the careful reader then explains what)."""
    try:
        scanned = scan_trials(decoded_runs(file, raw, text))
    except (OSError, EOFError, ValueError, RuntimeError):  # a damaged file: the readers below name it
        scanned = None
    if scanned is not None:
        names = scanned.names
        offsets = np.concatenate((np.zeros(1, dtype=np.int64), scanned.option_end))
        return _assembled(file, name, scanned.key, scanned.size, (scanned.tuple_code, names[0]),
                          (scanned.problem_code, names[1]),
                          _combine_options(offsets, scanned.option_code.astype(np.int64), names[3]),
                          (scanned.gold_code, names[2]), scanned.gold_obfuscated)
    table = decoded_table(file, raw, text)
    if table is None:
        return None
    required = ("Key", "tuple_ID", "problemname", "problemsize", "expectedresp")
    if any(table.column(c).null_count for c in required):
        return None
    gold = _gold_column(table)
    if gold is None:
        return None
    return _assembled(file, name, arrow_numbers(table.column("Key")), arrow_numbers(table.column("problemsize")),
                      _encode(table.column("tuple_ID")), _encode(table.column("problemname")),
                      _option_combinations(table.column("expectedresp")), _encode(gold[0]), gold[1])


Coded = tuple[np.ndarray, list[str]]


def _assembled(file: Path, name: str, keys: np.ndarray, size: np.ndarray, tuples: Coded, problems: Coded,
               options: Coded | None, gold: Coded, obfuscated: bool) -> TrialColumns | None:
    """The trial columns from decoded fields (either reader's); ``None`` when the careful reader must judge."""
    if options is None:
        return None
    o_code, o_names = options
    g_code, g_names = gold
    if obfuscated:
        g_names = [GOLD_OBFUSCATION.get(v, v) for v in g_names]
    # Every gold answer must be one of its trial's options (else an unknown obfuscated value).
    allowed = np.array([[g in o.split("|") for g in g_names] for o in o_names], dtype=bool)
    if not allowed[o_code, g_code].all() or "" in o_names:
        return None
    try:
        _check_unique(keys, file)
    except BenchlabError:
        return None
    return TrialColumns(keys, tuples[0], tuples[1], problems[0], problems[1], size, o_code, o_names, g_code, g_names,
                        file, name)
