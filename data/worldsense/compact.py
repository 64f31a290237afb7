"""Vectorised reading of results files in the exact published form ``{"Key":<int>,"resp":"<str>"}``.

The four published files of the test set hold 87 048 such lines each. Checking the fixed punctuation and decoding
the digits with numpy on the raw bytes takes a few milliseconds and almost no memory, where a JSON parser costs
tens of megabytes (pyarrow) or a second (``json``). Any file not exactly in this form returns ``None`` and is read
by the general readers instead, so this is purely a fast path.

Each field is read as one row of bytes per line from a strided window over the file (no index matrices), Keys are
summed digit by digit in 64-bit integers (not parsed one Python ``int`` at a time), and the few distinct answers
are told apart as two 64-bit words per line (no string sort): together about a quarter of the CPU of the
first version, which mattered on a one-core first scoring.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from benchlab.data.worldsense.trial_scan import scan_compact

_HEAD = b'{"Key":'
_MID = b',"resp":"'
_TAIL = b'"}'
_MAX_DIGITS = 19
_MAX_RESP = 32
_PAD = 32  # >= every row read (24 digits, 32 answer bytes)  # zeros around the file: any row read stays inside


def _padded(buf: np.ndarray) -> np.ndarray:
    return np.concatenate([np.zeros(_PAD, dtype=np.uint8), buf, np.zeros(_PAD, dtype=np.uint8)])


def _rows(padded: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """``buf[s:s + width]`` for every ``s`` in ``starts`` (positions in the file, zeros outside it), as an
    (n, width) array."""
    return sliding_window_view(padded, width)[starts + _PAD]


def _matches(padded: np.ndarray, starts: np.ndarray, pattern: bytes) -> bool:
    at = starts + _PAD
    # one byte position at a time (n bytes each): cheaper than gathering rows
    return all(bool((padded[at + offset] == byte).all()) for offset, byte in enumerate(pattern))


def read_compact_results(raw: bytes) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """``(keys int64, answer codes int32, answer strings)`` or ``None`` if ``raw`` is not exactly in that form.

    The compiled scanner reads it when it is available here (the same result, about a tenth of the CPU); what it
    declines is judged by the numpy reader below."""
    if not raw.endswith(b"\n"):
        return None
    scanned = scan_compact(raw)
    if scanned is not None:
        return scanned
    return _numpy_compact(raw)


def _numpy_compact(raw: bytes) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    buf = np.frombuffer(raw, dtype=np.uint8)
    # One pass for both: a line of this form holds exactly one comma, so they must alternate, comma first.
    marks = np.flatnonzero((buf == ord("\n")) | (buf == ord(",")))
    commas, ends = marks[0::2], marks[1::2]
    n = len(ends)
    if n == 0 or len(commas) != n or not ((buf[commas] == ord(",")).all() and (buf[ends] == ord("\n")).all()):
        return None
    starts = np.empty(n, dtype=np.intp)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    if not ((commas > starts) & (commas < ends)).all():
        return None
    resp_start = commas + len(_MID)
    resp_end = ends - len(_TAIL)
    key_start = starts + len(_HEAD)
    if (resp_end < resp_start).any() or (commas <= key_start).any():
        return None
    padded = _padded(buf)
    if not (_matches(padded, starts, _HEAD) and _matches(padded, commas, _MID)
            and _matches(padded, resp_end, _TAIL)):
        return None
    keys = _keys(padded, key_start, commas)
    if keys is None:
        return None
    # Answers: short strings without escapes or quotes.
    resp_len = resp_end - resp_start
    width = int(resp_len.max())
    if width > _MAX_RESP:
        return None
    if width == 0:
        return keys, np.zeros(n, dtype=np.int32), [""]
    chars = _rows(padded, resp_start, width)  # a fresh array (fancy indexing copies)
    inside = np.arange(width) < resp_len[:, None]
    chars[~inside] = 0
    if ((chars == ord('"')) | (chars == ord("\\")) | ((chars < 0x20) & inside)).any():
        return None
    values, codes = _distinct(chars)
    try:
        names = [v.decode("utf-8") for v in values]
    except UnicodeDecodeError:
        return None
    return keys, codes, names


def _keys(padded: np.ndarray, key_start: np.ndarray, commas: np.ndarray) -> np.ndarray | None:
    """The Keys (an optional ``-``, then 1-19 digits up to the comma) as int64; ``None`` if one is not such a
    number or lies beyond 64 bits."""
    negative = padded[key_start + _PAD] == ord("-")
    length = commas - (key_start + negative)
    if (length < 1).any() or (length > _MAX_DIGITS).any():
        return None
    # The 24 bytes before each comma, right-aligned: the digits as values 0-9, zeros before them; then each row
    # is three little-endian words of 8 digits, each turned into its number with integer steps on all rows at
    # once (pairs, then quads, then eights of digits), and the three joined. 19 digits stay below 2**64.
    digits = _rows(padded, commas - 24, 24) - np.uint8(ord("0"))  # non-digits wrap above 9
    inside = np.arange(24) >= (24 - length)[:, None]
    if ((digits > 9) & inside).any():
        return None
    digits[~inside] = 0
    words = digits.view("<u8")  # (n, 3): the first digit of each word in its lowest byte
    words = (words * np.uint64(10) + (words >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    words = (words * np.uint64(100) + (words >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    words = (words * np.uint64(10000) + (words >> np.uint64(32))) & np.uint64(0xFFFFFFFF)
    value = (words[:, 0] * np.uint64(10**8) + words[:, 1]) * np.uint64(10**8) + words[:, 2]
    limit = np.where(negative, np.uint64(2**63), np.uint64(2**63 - 1))
    if (value > limit).any():
        return None  # beyond 64 bits
    keys = value.view(np.int64)
    np.negative(keys, out=keys, where=negative)  # -2**63 stays itself, as wanted
    return keys


def _distinct(chars: np.ndarray) -> tuple[list[bytes], np.ndarray]:
    """The distinct NUL-padded rows of ``chars`` (sorted as bytes) and each row's index into them.

    Answers take a handful of values, so up to 16 bytes they are compared as two integers per row, value by
    value, which is cheaper than sorting every row; anything else is sorted (``np.unique``)."""
    width = chars.shape[1]
    if width <= 16:
        padded = np.zeros((len(chars), 16), dtype=np.uint8)
        padded[:, :width] = chars
        words = padded.view(np.uint64)
        low, high = words[:, 0].copy(), words[:, 1].copy()  # (contiguous: compared far faster than rows)
        found: list[tuple[np.uint64, np.uint64]] = []
        left_low, left_high = low, high
        while len(left_low) and len(found) <= 16:
            found.append((left_low[0], left_high[0]))
            keep = (left_low != left_low[0]) | (left_high != left_high[0])
            left_low, left_high = left_low[keep], left_high[keep]
        if not len(left_low):
            named = sorted((bytes(np.array(pair, dtype=np.uint64).view(np.uint8)).rstrip(b"\0"), pair)
                           for pair in found)
            codes = np.zeros(len(words), dtype=np.int32)
            for code, (_, (a, b)) in enumerate(named):
                codes[(low == a) & (high == b)] = code
            return [v for v, _ in named], codes
    fixed = np.ascontiguousarray(chars).view(f"S{width}").ravel()
    unique, inverse = np.unique(fixed, return_inverse=True)
    return [bytes(v) for v in unique], inverse.astype(np.int32).ravel()
