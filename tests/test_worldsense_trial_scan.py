"""The compiled trials scanner reads what arrow's reader reads, to the same columns, and declines every line that
is not plain valid JSON of the expected types; a scoring then says what the pure path says (the same file:line
message, or the same columns). The pure path runs when the scanner is switched off or cannot be built. Results
files in the published form are read by it exactly as the numpy reader reads them."""

from __future__ import annotations

import bz2
import random
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from benchlab.data import native_build
from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.worldsense import compact, trial_scan
from benchlab.data.worldsense.columns import TrialColumns, read_trial_columns
from benchlab.data.worldsense.score_cache import scored_output

SAMPLE = sample_path("worldsense")


def _text() -> bytes:
    return bz2.decompress((SAMPLE / "trials.jsonl.bz2").read_bytes())


def _line(n: int = 2) -> bytes:
    return _text().split(b"\n")[n]


def _with_line(tmp_path: Path, line: bytes, n: int = 2, *, text: bytes | None = None) -> Path:
    """The sample test set with its line ``n`` (0-based) replaced (or the whole text given)."""
    testset = tmp_path / "ts"
    shutil.copytree(SAMPLE, testset, dirs_exist_ok=True)
    if text is None:
        lines = _text().split(b"\n")
        lines[n] = line
        text = b"\n".join(lines)
    (testset / "trials.jsonl.bz2").write_bytes(bz2.compress(text))
    return testset


def _outcome(testset: Path) -> object:
    """What reading the trials gives: every column, or the error message."""
    try:
        columns = read_trial_columns(testset, cache=False)
    except BenchlabError as exc:
        return str(exc)
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in columns.__dict__.items()}


@pytest.fixture
def pure(monkeypatch: pytest.MonkeyPatch) -> object:
    """Within ``with pure():`` the scanner is off, as with BENCHLAB_NO_NATIVE."""

    class Pure:
        def __enter__(self) -> None:
            monkeypatch.setenv("BENCHLAB_NO_NATIVE", "1")
            monkeypatch.setattr(trial_scan, "_tried", False)
            monkeypatch.setattr(trial_scan, "_lib", None)

        def __exit__(self, *exc: object) -> None:
            monkeypatch.delenv("BENCHLAB_NO_NATIVE")
            monkeypatch.setattr(trial_scan, "_tried", False)
            monkeypatch.setattr(trial_scan, "_lib", None)

    return Pure


def _both(testset: Path, pure: object) -> tuple[object, object]:
    scanned = _outcome(testset)
    with pure():  # type: ignore[operator]
        assert not trial_scan.scanner_available()
        plain = _outcome(testset)
    return scanned, plain


def test_the_scanner_is_built_and_reads_the_sample_as_the_pure_path_does(pure: object) -> None:
    assert trial_scan.scanner_available()
    text = _text()
    assert trial_scan.scan_trials([(text, len(text))]) is not None
    scanned, plain = _both(SAMPLE, pure)
    assert isinstance(scanned, dict) and scanned == plain


ACCEPTED = {
    "blank and blank-looking lines": lambda t: t.replace(b"\n", b"\n\n  \t\n", 3),
    "CRLF line ends": lambda t: t.replace(b"\n", b"\r\n"),
    "no final newline": lambda t: t.rstrip(b"\n"),
    "spaces around every token": lambda t: t.replace(b'":', b'" :  ').replace(b',"', b' , "'),
    "fields in another order": lambda t: t.replace(b'{"Key":', b'{"zz": [1, {"a": null}], "Key":'),
    "non-ASCII and escapes in names and text": lambda t: t.replace(b"Compl.normal", "Compl.n\u00f6rmal".encode())
    .replace(b"Emily", "Em\u00efly \\u00e9\\ud83d\\ude00\\/\\t".encode()),
    "numbers and literals elsewhere": lambda t: t.replace(b'"span":1', b'"span":-1.25e+3, "f": [true, false, null]'),
    "Keys at the int64 edges, and -0": lambda t: _keys(t, b"9223372036854775807", b"-9223372036854775807", b"-0"),
}


def _keys(text: bytes, *keys: bytes) -> bytes:
    """The first lines' Keys replaced by ``keys``."""
    lines = text.split(b"\n")
    for n, key in enumerate(keys):
        lines[n] = re.sub(rb'"Key":-?[0-9]+', b'"Key":' + key, lines[n], count=1)
    return b"\n".join(lines)


@pytest.mark.parametrize("change", list(ACCEPTED))
def test_valid_variants_are_scanned_to_the_pure_paths_columns(tmp_path: Path, pure: object, change: str) -> None:
    text = ACCEPTED[change](_text())
    assert text != _text() or change == "no final newline"
    assert trial_scan.scan_trials([(text, len(text))]) is not None  # the scanner itself read it
    scanned, plain = _both(_with_line(tmp_path, b"", text=text), pure)
    assert isinstance(scanned, dict) and scanned == plain


# Each is declined by the scanner; the scoring then says exactly what the pure path says (arrow accepts a few of
# these, e.g. NaN or two objects on a line, and the outcome is still the pure path's).
DECLINED = {
    "bad escape in the text": lambda s: s.replace(b"\\n", b"\\q", 1),
    "bad \\u escape": lambda s: s.replace(b"\\n", b"\\u12G4", 1),
    "lone high surrogate": lambda s: s.replace(b"\\n", b"\\ud83d", 1),
    "lone low surrogate": lambda s: s.replace(b"\\n", b"\\ude00", 1),
    "raw control character": lambda s: s.replace(b"\\n", b"\t", 1),
    "truncated line": lambda s: s[: len(s) // 2],
    "bad UTF-8": lambda s: s.replace(b"Emily", b"Em\xffly", 1),
    "overlong UTF-8": lambda s: s.replace(b"Emily", b"Em\xc1\xa9ly", 1),
    "UTF-8 surrogate": lambda s: s.replace(b"Emily", b"Em\xed\xa0\x80ly", 1),
    "cut UTF-8": lambda s: s.replace(b'Emily"', b'Emily\xe2\x82"', 1),
    "Key as a string": lambda s: s.replace(b'"Key":-', b'"Key":"-', 1).replace(b',"problemname"', b'","problemname"',
                                                                                 1),
    "Key with a fraction": lambda s: s.replace(b',"problemname"', b'.5,"problemname"', 1),
    "Key beyond int64": lambda s: s.replace(b'"Key":-7347353093589857400', b'"Key":9223372036854775808', 1),
    "Key with a leading zero": lambda s: s.replace(b'"Key":-7347353093589857400', b'"Key":07', 1),
    "problemsize null": lambda s: s.replace(b'"problemsize":3', b'"problemsize":null', 1),
    "problemsize true": lambda s: s.replace(b'"problemsize":3', b'"problemsize":true', 1),
    "options not a list": lambda s: s.replace(b'"expectedresp":["1","2","3"]', b'"expectedresp":"1"', 1),
    "an option a number": lambda s: s.replace(b'"expectedresp":["1","2","3"]', b'"expectedresp":["1",2,"3"]', 1),
    "no options": lambda s: s.replace(b'"expectedresp":["1","2","3"]', b'"expectedresp":[]', 1),
    "tuple_ID escaped": lambda s: s.replace(b'"tuple_ID":"fast', b'"tuple_ID":"\\u0066ast', 1),
    "missing tuple_ID": lambda s: s.replace(b'"tuple_ID":', b'"tuple_ID_":', 1),
    "missing gold": lambda s: s.replace(b'"goldresp', b'"gold_', 1),
    "both gold fields": lambda s: s.replace(b'"span":', b'"goldresp":"1","span":', 1),
    "duplicate Key field": lambda s: s.replace(b'"span":', b'"Key":5,"span":', 1),
    "escaped field name": lambda s: s.replace(b'"Key"', b'"K\\u0065y"', 1),
    "NaN elsewhere": lambda s: s.replace(b'"span":1', b'"span":NaN', 1),
    "two objects on a line": lambda s: s + s.replace(b'"Key":-7', b'"Key":-8', 1),
    "trailing comma": lambda s: s[:-1] + b",}",
    "not an object": lambda s: b"[" + s + b"]",
    "text after the object": lambda s: s + b" x",
    "unclosed nesting": lambda s: s.replace(b'"span":1', b'"span":[[1]', 1),
}


@pytest.mark.parametrize("change", list(DECLINED))
def test_malformed_lines_are_declined_and_reported_as_the_pure_path_reports_them(
        tmp_path: Path, pure: object, change: str) -> None:
    line = DECLINED[change](_line())
    assert line != _line()
    assert trial_scan.scan_trials([(line, len(line))]) is None
    scanned, plain = _both(_with_line(tmp_path, line), pure)
    assert scanned == plain
    if isinstance(plain, str):
        assert ":3: " in plain and "trials.jsonl.bz2" in plain  # the file and the line


def test_a_scoring_prints_the_same_with_and_without_the_scanner(tmp_path: Path, pure: object) -> None:
    testset = _with_line(tmp_path, _line())
    printed = scored_output(testset, [testset / "results"], "csv", cache=False).text
    with pure():  # type: ignore[operator]
        assert scored_output(testset, [testset / "results"], "csv", cache=False).text == printed


def test_without_a_compiler_the_pure_path_reads_the_trials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    monkeypatch.setattr(trial_scan, "library_path", lambda stem, source: tmp_path / f"{stem}-0.so")
    monkeypatch.setattr(trial_scan, "_tried", False)
    monkeypatch.setattr(trial_scan, "_lib", None)
    assert not native_build.compile_library(trial_scan.SOURCE, tmp_path / "x-1.so", ["-O2"])
    assert not trial_scan.scanner_available()
    columns = read_trial_columns(SAMPLE, cache=False)
    assert isinstance(columns, TrialColumns) and len(columns) == _text().count(b"\n")


def _fuzzed_results(rng: random.Random) -> bytes:
    """A few lines near the published results form: bad punctuation, long or odd Keys, odd answers."""
    keys = ["0", "-0", "7", "007", "-9223372036854775808", "9223372036854775807", "9223372036854775808",
            "-9223372036854775809", "18446744073709551616", "1" * 19, "1" * 20, "", "-", "+5", "1.5", "1e3", " 7"]
    answers = ["", "1", "TRUE", "IMPOSSIBLE", "x" * 16, "y" * 17, "z" * 32, "w" * 33, 'a"b', "a\\b", "a\tb",
               "\u00e9t\u00e9", "\u2713", "a,b"]
    lines = []
    for _ in range(rng.randint(1, 4)):
        line = f'{{"Key":{rng.choice(keys)},"resp":"{rng.choice(answers)}"}}'.encode()
        if rng.random() < 0.2:
            at = rng.randrange(len(line))
            line = line[:at] + rng.choice([b"", b",", b" ", b'"', b"\xff", b"\xc3", b"\n"]) + line[at + 1:]
        lines.append(line)
    return b"\n".join(lines) + (b"\n" if rng.random() < 0.95 else b"")


def test_published_results_are_read_by_the_scanner_exactly_as_by_numpy() -> None:
    rng = random.Random(24)
    accepted = 0
    for _ in range(3000):
        raw = _fuzzed_results(rng)
        ours, theirs = trial_scan.scan_compact(raw) if raw.endswith(b"\n") else None, compact._numpy_compact(raw)
        assert (ours is None) == (theirs is None), raw
        if ours is not None and theirs is not None:
            accepted += 1
            assert ours[0].tolist() == theirs[0].tolist() and ours[2] == theirs[2], raw
            assert ours[1].tolist() == theirs[1].tolist() and ours[1].dtype == theirs[1].dtype, raw
    assert accepted > 150  # (most fuzzed files are not in the form; enough are)
    for file in sorted(SAMPLE.glob("results/**/*.jsonl")):
        raw = file.read_bytes()
        assert trial_scan.scan_compact(raw) is not None or compact._numpy_compact(raw) is None
