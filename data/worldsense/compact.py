"""Vectorised reading of results files in the exact published form ``{"Key":<int>,"resp":"<str>"}``.

The four published files of the test set hold 87 048 such lines each. Checking the fixed punctuation and decoding
the digits with numpy on the raw bytes takes a few milliseconds and almost no memory, where a JSON parser costs
tens of megabytes (pyarrow) or a second (``json``). Any file not exactly in this form returns ``None`` and is read
by the general readers instead, so this is purely a fast path.
"""

from __future__ import annotations

import numpy as np

_HEAD = b'{"Key":'
_MID = b',"resp":"'
_TAIL = b'"}'
_MAX_DIGITS = 19
_MAX_RESP = 32


def _matches(buf: np.ndarray, starts: np.ndarray, pattern: bytes) -> bool:
    # one byte position at a time: no (lines x len(pattern)) index matrix
    return all(bool((buf[starts + offset] == byte).all()) for offset, byte in enumerate(pattern))


def read_compact_results(raw: bytes) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """``(keys int64, answer codes int32, answer strings)`` or ``None`` if ``raw`` is not exactly in that form."""
    if not raw.endswith(b"\n"):
        return None
    buf = np.frombuffer(raw, dtype=np.uint8)
    ends = np.flatnonzero(buf == ord("\n"))
    n = len(ends)
    commas = np.flatnonzero(buf == ord(","))
    if n == 0 or len(commas) != n:
        return None  # exactly one comma per line, so commas[i] belongs to line i
    starts = np.concatenate([[0], ends[:-1] + 1])
    if not ((commas > starts) & (commas < ends)).all():
        return None
    resp_start = commas + len(_MID)
    resp_end = ends - len(_TAIL)
    key_start = starts + len(_HEAD)
    if (resp_end < resp_start).any() or (commas <= key_start).any():
        return None
    if not (_matches(buf, starts, _HEAD) and _matches(buf, commas, _MID) and _matches(buf, resp_end, _TAIL)):
        return None
    # Keys: optional "-", then 1-19 digits.
    negative = buf[key_start] == ord("-")
    digit_start = key_start + negative
    length = commas - digit_start
    if (length < 1).any() or (length > _MAX_DIGITS).any():
        return None
    # Right-padded with NULs into fixed-width byte strings, which numpy parses as integers in C.
    width = _MAX_DIGITS + 1
    index = key_start[:, None] + np.arange(width)
    inside = np.arange(width) < (commas - key_start)[:, None]
    text = np.where(inside, buf[np.minimum(index, len(buf) - 1)], 0).astype(np.uint8)
    is_digit = (text >= ord("0")) & (text <= ord("9"))
    is_digit[:, 0] |= negative
    if not (is_digit | ~inside).all():
        return None
    try:
        keys = np.ascontiguousarray(text).view(f"S{width}").ravel().astype(np.int64)
    except (OverflowError, ValueError):
        return None  # beyond 64 bits
    # Answers: short strings without escapes or quotes.
    resp_len = resp_end - resp_start
    width = int(resp_len.max())
    if width > _MAX_RESP:
        return None
    if width == 0:
        return keys, np.zeros(n, dtype=np.int32), [""]
    index = resp_start[:, None] + np.arange(width)
    inside = np.arange(width) < resp_len[:, None]
    chars = np.where(inside, buf[np.minimum(index, len(buf) - 1)], 0).astype(np.uint8)
    if ((chars == ord('"')) | (chars == ord("\\")) | ((chars < 0x20) & inside)).any():
        return None
    values, codes = _distinct(chars)
    try:
        names = [v.decode("utf-8") for v in values]
    except UnicodeDecodeError:
        return None
    return keys, codes, names


def _distinct(chars: np.ndarray) -> tuple[list[bytes], np.ndarray]:
    """The distinct NUL-padded rows of ``chars`` (sorted as bytes) and each row's index into them.

    Answers take a handful of values, so up to 8 bytes they are compared as one integer per row, value by value,
    which is cheaper than sorting every row; anything else is sorted (``np.unique``)."""
    width = chars.shape[1]
    if width <= 8:
        padded = np.zeros((len(chars), 8), dtype=np.uint8)
        padded[:, :width] = chars
        words = padded.view(np.uint64).ravel()
        found: list[np.uint64] = []
        left = words
        while len(left) and len(found) <= 16:
            found.append(left[0])
            left = left[left != left[0]]
        if not len(left):
            values = sorted((bytes(np.array([w], dtype=np.uint64).view(np.uint8)).rstrip(b"\0"), w) for w in found)
            codes = np.zeros(len(words), dtype=np.int32)
            for code, (_, word) in enumerate(values):
                codes[words == word] = code
            return [v for v, _ in values], codes
    fixed = np.ascontiguousarray(chars).view(f"S{width}").ravel()
    unique, inverse = np.unique(fixed, return_inverse=True)
    return [bytes(v) for v in unique], inverse.astype(np.int32).ravel()
