"""The scoring fields of a WorldSense trials file, read by a compiled scanner straight from the decoder's runs.

Why: on one core a first scoring run is the bzip2 decoding (~70 %) plus what reads the 70 MB of JSON it yields.
Arrow's reader tokenizes every line into its own buffers and costs, with pyarrow's import, about 0.2 CPU-seconds
on the published test set; a single pass in C that validates each line and keeps only the seven fields scoring
reads (as codes into lists of distinct strings, in order of first appearance, exactly as arrow's dictionary
encoding numbers them) costs a few tens of milliseconds, and pyarrow is not imported at all.

The scanner accepts nothing arrow's reader declines, and yields the same values where it accepts (see
:mod:`benchlab.data.worldsense.trial_scan_c` for what it declines rather than interprets). Anything it declines
goes the old way: arrow, then the validating reader, which names the file and line. The C is compiled once per
machine into the cache folder (:mod:`benchlab.data.native_build`) and used only after it read a sample here as
expected. Without a compiler, or with ``BENCHLAB_NO_NATIVE`` set, arrow reads every file, with the same results.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchlab.data.native_build import compile_library, library_path, open_library
from benchlab.data.worldsense.trial_scan_c import SOURCE

_SHORTEST_RESULT = b'{"Key":0,"resp":""}\n'

#: The name lists the scanner keeps, in its order.
TUPLES, PROBLEMS, GOLD, OPTION_VALUES = range(4)

_lib: ctypes.CDLL | None = None
_tried = False
_loading = threading.Lock()

_P = ctypes.c_void_p


@dataclass(frozen=True)
class ScannedTrials:
    """The scanner's columns: one entry per trial in file order; ``option_end[i]`` ends trial i's options in
    ``option_code``; names are the distinct values of each field in order of first appearance."""

    key: np.ndarray
    size: np.ndarray
    tuple_code: np.ndarray
    problem_code: np.ndarray
    gold_code: np.ndarray
    option_end: np.ndarray
    option_code: np.ndarray
    names: tuple[list[str], list[str], list[str], list[str]]
    gold_obfuscated: bool


def _declare(lib: ctypes.CDLL) -> None:
    i64, i32 = ctypes.c_int64, ctypes.c_int32
    for name, restype, argtypes in (
        ("ws_new", _P, []), ("ws_free", None, [_P]), ("ws_feed", ctypes.c_int, [_P, _P, i64]),
        ("ws_failed_line", i64, [_P]), ("ws_rows", i64, [_P]), ("ws_options", i64, [_P]),
        ("ws_gold_kind", ctypes.c_int, [_P]), ("ws_names", i32, [_P, ctypes.c_int]),
        ("ws_names_bytes", i64, [_P, ctypes.c_int]), ("ws_columns", None, [_P] * 8),
        ("ws_name_text", None, [_P, ctypes.c_int, _P]), ("ws_compact", i64, [_P, _P, i64, i64, _P, _P]),
    ):
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


_SAMPLE = (
    b'{"Key": -5, "tuple_ID": "t\xc3\xa9", "text": "a\\n\\u00e9\\ud83d\\ude00 [x]", "expectedresp": ["1", "2"],'
    b' "nested": [{"a": [true, false, null, -1.5e3]}], "problemsize": 3, "problemname": "p", "goldresp": "2"}\n'
    b'\n  {"problemname":"p","goldresp":"1","tuple_ID":"u","Key":9223372036854775807,"problemsize":0,'
    b'"expectedresp":["2","1","3"]}'
)


def _agrees(lib: ctypes.CDLL) -> bool:
    """The library is used only if it reads a sample (and declines its broken forms) as expected here."""
    got = _scan_with(lib, [(_SAMPLE, len(_SAMPLE))])
    if got is None:
        return False
    expected = ([-5, 2**63 - 1], [3, 0], [0, 1], [0, 0], [0, 1], [2, 5], [0, 1, 1, 0, 2])
    columns = (got.key, got.size, got.tuple_code, got.problem_code, got.gold_code, got.option_end, got.option_code)
    if any(c.tolist() != e for c, e in zip(columns, expected, strict=True)) or got.gold_obfuscated:
        return False
    if got.names != (["t\u00e9", "u"], ["p"], ["2", "1"], ["1", "2", "3"]):
        return False
    broken = (_SAMPLE.replace(b"\\ud83d", b"\\ud83x"), _SAMPLE.replace(b"\xc3\xa9", b"\xc3("),
              _SAMPLE.replace(b'"Key": -5', b'"Key": -5.0'), _SAMPLE + b"}")
    return all(_scan_with(lib, [(text, len(text))]) is None for text in broken)


def _load() -> ctypes.CDLL | None:
    """The compiled scanner, built on first use; None when it cannot be built, loaded or trusted."""
    global _lib, _tried
    with _loading:
        if _tried:
            return _lib
        _tried = True
        if os.environ.get("BENCHLAB_NO_NATIVE"):
            return None
        lib = open_library(library_path("worldsense-scan", SOURCE), _build)
        if lib is None:
            return None
        try:
            _declare(lib)
        except AttributeError:  # a library without these functions
            return None
        _lib = lib if _agrees(lib) else None
        return _lib


def _build(target: Path) -> bool:
    return compile_library(SOURCE, target, ["-O2"])


def scanner_available() -> bool:
    """Whether the compiled scanner runs here (else arrow reads the trials, with the same results)."""
    return _load() is not None


def scan_trials(runs: Iterable[tuple[bytes, int]]) -> ScannedTrials | None:
    """The scoring fields of the trials in ``runs``: ``(data, end)``, whole lines in ``data[:end]`` (the last run
    may lack its newline), as :mod:`~benchlab.data.worldsense.trial_decode` yields them; ``None``
    when the scanner is not available, declines a line, or finds no trial."""
    lib = _load()
    if lib is None:
        return None
    return _scan_with(lib, runs)


def _scan_with(lib: ctypes.CDLL, runs: Iterable[tuple[bytes, int]]) -> ScannedTrials | None:
    handle = lib.ws_new()
    if not handle:
        return None
    try:
        for data, end in runs:
            if not lib.ws_feed(handle, data, end):  # reads data[:end] in place (bytes are passed, not copied)
                return None
        rows, options = lib.ws_rows(handle), lib.ws_options(handle)
        if not rows:
            return None
        key, size, option_end = (np.empty(rows, dtype=np.int64) for _ in range(3))
        tuple_code, problem_code, gold_code = (np.empty(rows, dtype=np.int32) for _ in range(3))
        option_code = np.empty(options, dtype=np.int32)
        lib.ws_columns(handle, *(a.ctypes.data for a in (key, size, tuple_code, problem_code, gold_code,
                                                         option_end, option_code)))
        names = tuple(_names(lib, handle, which) for which in (TUPLES, PROBLEMS, GOLD, OPTION_VALUES))
        return ScannedTrials(key, size, tuple_code, problem_code, gold_code, option_end, option_code,
                             names, lib.ws_gold_kind(handle) == 1)  # type: ignore[arg-type]
    finally:
        lib.ws_free(handle)


def _names(lib: ctypes.CDLL, handle: int, which: int) -> list[str]:
    count = lib.ws_names(handle, which)
    if not count:
        return []
    blob = ctypes.create_string_buffer(lib.ws_names_bytes(handle, which) + count - 1)
    lib.ws_name_text(handle, which, blob)
    return blob.raw.decode("utf-8").split("\0")  # (every name was checked to be UTF-8, none holds a NUL)


def scan_compact(raw: bytes) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """:func:`~benchlab.data.worldsense.compact.read_compact_results` in C: ``(keys, answer codes into the sorted
    distinct answers, those answers)``; ``None`` when the scanner is not available or ``raw`` is not exactly in
    the published form (the numpy reader then decides)."""
    lib = _load()
    if lib is None:
        return None
    room = len(raw) // len(_SHORTEST_RESULT) + 1  # no line of the form is shorter (counting them costs more)
    handle = lib.ws_new()
    if not handle:
        return None
    try:
        keys = np.empty(room, dtype=np.int64)
        codes = np.empty(room, dtype=np.int32)
        lines = lib.ws_compact(handle, raw, len(raw), room, keys.ctypes.data, codes.ctypes.data)
        if lines < 1:
            return None
        keys, codes = keys[:lines].copy(), codes[:lines]
        count = lib.ws_names(handle, 0)
        blob = ctypes.create_string_buffer(lib.ws_names_bytes(handle, 0) + count - 1)
        lib.ws_name_text(handle, 0, blob)
        found = blob.raw.split(b"\0")  # (answers hold no control characters)
    finally:
        lib.ws_free(handle)
    order = sorted(range(count), key=found.__getitem__)  # the numpy reader's names are sorted as bytes
    try:
        names = [found[i].decode("utf-8") for i in order]
    except UnicodeDecodeError:
        return None
    rank = np.empty(count, dtype=np.int32)
    rank[order] = np.arange(count, dtype=np.int32)
    return keys, rank[codes], names
