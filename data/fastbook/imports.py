"""Bring retrieval results made with the benchmark's own notebooks into run files.

The reference notebooks keep results as a Python list aligned with ``questions`` by position, and publish them
in a results CSV / Excel workbook with one column per method, the ten passages of a question joined by a blank
line and a row of 48 ``=``. The workbook's text went through Mac-Roman mojibake (an en dash reads ``‚Äì``);
re-encoding a cell as Mac-Roman and decoding it as UTF-8 restores it. These readers turn either form into a
:class:`~benchlab.data.fastbook.runs.Run` keyed by question, so the published runs can be re-scored here.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from benchlab.data import text_io
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import Benchmark, QuestionId, read_text
from benchlab.data.fastbook.runs import Run, run_name
from benchlab.data.key_lines import json_line

SEPARATOR = "\n\n" + "=" * 48 + "\n"
EXCEL_HINT = "reading .xlsx needs openpyxl (pip install 'benchlab[fastbook]')"


def repair_mac_roman(text: str) -> str:
    """Undo UTF-8-read-as-Mac-Roman mojibake; text that is not such mojibake is returned unchanged."""
    if text.isascii():
        return text
    try:
        return text.encode("mac_roman").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def run_from_positional(benchmark: Benchmark, results: list[Any], name: str, path: Path | None = None,
                        text: str | None = None) -> Run:
    """A run from results aligned with ``benchmark.questions`` by position (how the notebooks keep them); with the
    file's ``text``, an error names the line of the list at fault."""
    if len(results) != len(benchmark):
        raise BenchlabError(f"{len(results)} result lists for {len(benchmark)} questions: positional results must "
                            "have exactly one list per question, in the benchmark's order", path,
                            1 if path is not None else None)
    run = Run(name, path=path)
    for i, (question, passages) in enumerate(zip(benchmark, results, strict=True)):
        if not isinstance(passages, list) or not all(isinstance(p, str) for p in passages):
            raise BenchlabError(f"item {i + 1} ({question.id}) is not a list of strings", path,
                                json_line(text, (i,)) if text is not None else None)
        run.results[question.id] = passages
    return run


def read_positional_json(path: str | Path, benchmark: Benchmark, name: str | None = None) -> Run:
    p = Path(path)
    text = read_text(p)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchlabError(f"not valid JSON ({exc.msg}, column {exc.colno})", p, exc.lineno) from exc
    if not isinstance(data, list):
        raise BenchlabError("expected a JSON list with one list of passages per question", p, json_line(text, ()))
    return run_from_positional(benchmark, data, name or run_name(p), p, text)


def _table_rows(path: Path) -> list[dict[str, Any]]:
    # A mistyped path must say so, not ask for openpyxl first.
    if path.is_dir():
        raise BenchlabError("is a folder, expected a results table (.csv or .xlsx)", path)
    if not path.exists():
        raise BenchlabError("no such file", path)
    try:
        if path.suffix.lower() in (".xlsx", ".xlsm"):
            try:
                # deferred: openpyxl is the optional [fastbook] extra, loaded only for an .xlsx file
                import openpyxl  # noqa: F401
            except ImportError as exc:
                raise BenchlabError(EXCEL_HINT, path) from exc
            frame = pd.read_excel(path, sheet_name=0, dtype=object)
        else:
            text = text_io.read_text(path, "a results table")  # strict UTF-8: bad bytes name their line
            frame = pd.read_csv(io.StringIO(text), dtype=object, keep_default_na=False)
    except FileNotFoundError as exc:
        raise BenchlabError("no such file", path) from exc
    except BenchlabError:
        raise
    except (OSError, ValueError) as exc:
        raise BenchlabError(f"cannot read this results table ({exc})", path) from exc
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict(orient="records")]


def result_columns(path: str | Path) -> list[str]:
    """Method columns of a results table (those with a passages-per-question layout)."""
    rows = _table_rows(Path(path))
    if not rows:
        return []
    return [c for c in rows[0] if isinstance(c, str) and not c.endswith(("_manual", "_mrr10", "_recall10"))
            and c not in ("chapter", "question_number", "question_text", "answer", "keywords")]


def read_results_table(path: str | Path, benchmark: Benchmark, column: str, *, repair: bool = True,
                       name: str | None = None) -> Run:
    """One method column of the notebooks' results CSV / workbook as a run (row = chapter, question_number)."""
    p = Path(path)
    rows = _table_rows(p)
    if not rows:
        raise BenchlabError("the results table is empty", p)
    missing = {"chapter", "question_number", column} - set(rows[0])
    if missing:
        raise BenchlabError(f"missing column(s) {', '.join(sorted(missing))}; method columns here: "
                            f"{', '.join(result_columns(p)) or 'none'}", p, 1)
    known = set(benchmark.ids())
    run = Run(name or column, path=p)
    for i, row in enumerate(rows):
        line = i + 2  # header is line 1
        try:
            qid = QuestionId(int(float(row["chapter"])), int(float(row["question_number"])))
        except (TypeError, ValueError):
            if all(_blank(v) for v in row.values()):
                continue
            raise BenchlabError("chapter and question_number must be numbers", p, line) from None
        if qid not in known:
            raise BenchlabError(f"{qid} is not in the benchmark", p, line)
        if qid in run.results:
            raise BenchlabError(f"{qid} appears twice", p, line)
        cell = row[column]
        text = "" if _blank(cell) else str(cell)
        if repair:
            text = repair_mac_roman(text)
        run.results[qid] = text.split(SEPARATOR) if text else []
    return run


def _blank(value: Any) -> bool:
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))
