"""SORT rows of ``benchlab export trials``: every row of every human results CSV (practice included, marked), with
the memory condition and configuration as the condition and the design variables as columns; columns a newer
design adds are carried verbatim, so an export never silently loses them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchlab.annotations.trial_rows import CLIENT_COLUMNS, TrialExport, client_values, flags_text, session_files
from benchlab.data.errors import BenchlabError
from benchlab.data.sort.results_format import answer_of
from benchlab.data.text_io import read_csv_header, read_csv_records

#: Columns of the human file that are mapped to export columns (or too large to export: the excerpt text).
_MAPPED = {"", "participant", "session", "trial_index", "block", "practice", "simulated", "answer", "correct",
           "rt_ms", "onset_source", "wall_clock", "condition", "excerpt_length", "segment_length", "distance_bin",
           "book_idx", "excerpt_idx", "present_seg1_first", "ground_truth", "reading_ms", "delay_ms",
           "excerpt_text", "interrupted", "reading_timed_out", "skipped", "seen_share"}


def _int(text: str | None) -> int | None:
    try:
        return int(float(text)) if text not in (None, "") else None
    except ValueError:
        return None


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


def _true(text: str | None) -> bool:
    return str(text).strip().lower() in ("true", "1", "yes")


def _row(r: dict[str, str], n: int, path: Path) -> dict[str, Any]:
    le, ls = _int(r.get("excerpt_length")), _int(r.get("segment_length"))
    memory = r.get("condition") or "stm"
    skipped = _true(r.get("skipped")) or r.get("answer") == "X"  # X: skipped or no answer (scored wrong)
    rt = None if skipped else _float(r.get("rt_ms"))
    s1, s2 = _int(r.get("seg1_pos")), _int(r.get("seg2_pos"))
    config = f"e{le}-s{ls}"
    out: dict[str, Any] = {
        "participant": r.get("participant", ""), "session": r.get("session", ""),
        "trial_index": _int(r.get("trial_index")) if r.get("trial_index") else n, "block": _int(r.get("block")),
        "practice": _true(r.get("practice")), "simulated": r.get("simulated") or "",
        "item": f"{config}/{r.get('book_idx')}/{r.get('excerpt_idx')}/{r.get('distance_bin')}",
        "condition": f"{memory} {config}", "response": r.get("answer", ""), "correct": _true(r.get("correct")),
        "rt_ms": rt, "onset_source": r.get("onset_source") or "", "timestamp": r.get("wall_clock") or "",
        "flags": flags_text(("skipped", skipped), ("interrupted", _true(r.get("interrupted"))),
                            ("reading_timed_out", _true(r.get("reading_timed_out"))),
                            ("no_rt", rt is None and not skipped)),
        "source_file": str(path),
        "memory": memory, "excerpt_length": le, "segment_length": ls, "distance_bin": _int(r.get("distance_bin")),
        "distance_words": (s2 - s1) if s1 is not None and s2 is not None else None,
        "book_idx": _int(r.get("book_idx")), "excerpt_idx": _int(r.get("excerpt_idx")),
        "present_seg1_first": _int(r.get("present_seg1_first")), "ground_truth": r.get("ground_truth", ""),
        "reading_ms": _float(r.get("reading_ms")), "delay_ms": _float(r.get("delay_ms")),
        "seen_share": _float(r.get("seen_share")), **client_values(r),
    }
    out.update({k: v for k, v in r.items() if k not in _MAPPED and k not in out and k is not None})
    return out


def rows(paths: list[Path], testset: Path | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in session_files(paths, ("*_results.csv", "*_practice.csv")):
        header = read_csv_header(path, "a SORT results file")
        if "participant" not in header:
            continue  # a model's results file
        if "answer" not in header:  # else every response would be exported empty, with exit 0
            raise BenchlabError("a participant's results file without the column 'answer'", path, 1)
        # Strict UTF-8 and every row as wide as the header (file:line otherwise); a torn last row is left out.
        records = read_csv_records(path, rows_end_with_newline=True, expected="a SORT results file")
        for n, (line, row) in enumerate(records.rows):
            record = dict(zip(records.header, row, strict=True))
            if not record.get("participant"):
                continue
            answer = answer_of(record.get("answer"))
            if answer is None:  # `score sort` refuses it too: an export must not carry what scoring cannot read
                raise BenchlabError(f"field 'answer': {record.get('answer')!r} is not A, B or X", path, line)
            out.append(_row(record | {"answer": answer}, n, path))
    return out


TRIALS = TrialExport(
    inputs="results CSVs or folders",
    testset_needed=None,
    shared_notes={"item": "configuration/book/excerpt/distance bin",
                  "condition": "memory condition and configuration, e.g. 'stm e250-s20'", "response": "A, B or X"},
    columns={
        "memory": "stm (excerpt read just before) or ltm (no text shown)",
        "excerpt_length": "excerpt length in words (L_E)",
        "segment_length": "segment length in words (L_S)",
        "distance_bin": "distance bin (its upper edge in words, start to start)",
        "distance_words": "distance between the two segments' starts in words",
        "book_idx": "book id", "excerpt_idx": "excerpt index",
        "present_seg1_first": "1 when the earlier segment was shown as A",
        "ground_truth": "the correct answer (A or B)",
        "reading_ms": "STM: time spent reading the excerpt (ms)",
        "delay_ms": "delay between reading and question (ms), as it happened (the plan's delay plus the time to "
                    "show the question)",
        "seen_share": "STM: share of the excerpt's lines that were on screen while reading (0-1); empty in LTM",
        **CLIENT_COLUMNS,
        "(more)": "any further column of the results file (e.g. of newer designs), verbatim; excerpt_text is "
                  "left out",
    },
    rows=rows,
)
