"""Rendering result tables in the formats researchers paste into papers and notebooks.

Every ``score``/``compare`` command builds pandas DataFrames of already formatted cells and hands them here,
so ``--format table|csv|json|markdown|latex`` behaves the same for every benchmark.

CSV: one table is a ``# title`` line and the table (``pandas.read_csv(f, comment="#")`` reads it). Several tables
are one tidy CSV that ``pandas.read_csv(f)`` reads as one frame (:func:`tidy_csv`): a leading ``table`` column with
each row's table title, then the union of the tables' row-label and value columns (empty where a table has no such
column); ``frame.groupby("table", sort=False)`` gives the tables back, ``.dropna(axis=1, how="all")`` their columns.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas loads with the first table, not with every `benchlab` command
    import pandas as pd

FORMATS = ("table", "csv", "json", "markdown", "latex")


@dataclass(frozen=True)
class Table:
    """A titled table; ``frame`` holds display-ready cells (strings or numbers), its index the row labels."""

    title: str
    frame: pd.DataFrame
    empty_text: str = "(no rows)"  # printed instead of an empty grid (markdown would otherwise show `|  |`)


def render(tables: Sequence[Table], fmt: str = "table") -> str:
    """Render tables one after another in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "json":
        payload = [
            {
                "title": t.title,
                "index_names": [str(n) if n is not None else "" for n in t.frame.index.names],
                "columns": [_label(c) for c in t.frame.columns],
                "rows": [
                    {"index": _label(idx), "cells": {_label(c): _jsonable(v) for c, v in row.items()}}
                    for idx, row in t.frame.iterrows()
                ],
            }
            for t in tables
        ]
        return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv" and len(tables) > 1:
        return tidy_csv(tables)
    parts = [_render_one(t, fmt) for t in tables]
    sep = "\n" if fmt == "csv" else "\n\n"
    return sep.join(parts).rstrip("\n") + "\n"


def _render_one(table: Table, fmt: str) -> str:
    frame = table.frame
    if frame.empty and fmt in ("table", "markdown", "latex"):
        mark = {"table": "", "markdown": "### ", "latex": "% "}[fmt]
        return f"{mark}{table.title}\n\n{table.empty_text}" if fmt == "markdown" else (
            f"{mark}{table.title}\n{table.empty_text}")
    if fmt == "table":
        # deferred: pandas loads only when `_render_one` runs (this module loads with the CLI)
        import pandas as pd

        # long text (notes, reasons) reads left-aligned; pandas would right-align it into very wide lines
        wide = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])
                and frame[c].map(lambda v: len(str(v))).max() > 40]
        formatters = {c: _left(frame[c]) for c in wide}
        with pd.option_context(
            "display.width", 10_000, "display.max_columns", None, "display.max_rows", None,
            "display.max_colwidth", None,
        ):
            text = frame.to_string(formatters=formatters or None, justify="left" if wide else None)
            return table.title + "\n" + "\n".join(line.rstrip() for line in text.splitlines())
    if fmt == "csv":
        buf = io.StringIO()
        frame.to_csv(buf)
        return f"# {table.title}\n{buf.getvalue()}"
    if fmt == "markdown":
        return f"### {table.title}\n\n{_markdown(frame)}"
    # latex: a plain tabular, escaped, without requiring jinja2 at run time.
    return f"% {table.title}\n{_latex(frame)}"


def _left(column: pd.Series) -> Callable[[object], str]:
    width = int(column.map(lambda v: len(str(v))).max())
    return lambda v: f"{v!s:<{width}}"


def _label(value: object) -> str:
    if isinstance(value, tuple):  # MultiIndex columns/rows; empty levels (a shared column) are left out
        return " / ".join(str(v) for v in value if str(v) != "")
    return str(value)


def _jsonable(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, float) and value != value:  # NaN
        return None
    if hasattr(value, "item"):
        return value.item()  # numpy scalar
    return value


def _markdown(frame: pd.DataFrame) -> str:
    index_header = " / ".join(str(n) if n is not None else "" for n in frame.index.names)
    header = [index_header] + [_label(c) for c in frame.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * len(frame.columns)) + "|"]
    for idx, row in frame.iterrows():
        cells = [_label(idx)] + ["" if _is_missing(v) else str(v) for v in row.tolist()]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def _is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value)


_LATEX_SPECIALS = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                   "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in text)


def _latex(frame: pd.DataFrame) -> str:
    index_header = " / ".join(str(n) if n is not None else "" for n in frame.index.names)
    cols = "l" + "r" * len(frame.columns)
    head = " & ".join(latex_escape(h) for h in [index_header] + [_label(c) for c in frame.columns])
    body = []
    for idx, row in frame.iterrows():
        cells = [_label(idx)] + ["" if _is_missing(v) else str(v) for v in row.tolist()]
        body.append(" & ".join(latex_escape(c) for c in cells) + r" \\")
    return "\n".join([rf"\begin{{tabular}}{{{cols}}}", r"\toprule", head + r" \\", r"\midrule", *body,
                      r"\bottomrule", r"\end{tabular}"])


def csv_files(tables: Sequence[Table]) -> dict[str, str]:
    """One plain CSV per table (no ``#`` title lines: R's ``read.csv`` and pandas read each as it is), keyed by a
    file name made from the table's position and title, e.g. ``01-accuracy-per-problem.csv``."""
    files: dict[str, str] = {}
    for number, table in enumerate(tables, start=1):
        slug = re.sub(r"[^a-z0-9]+", "-", table.title.lower()).strip("-")[:60].rstrip("-") or "table"
        buf = io.StringIO()
        # A "#" column name would read as a comment line to some CSV readers.
        names = ["number" if n == "#" else n for n in table.frame.index.names]
        frame = table.frame.copy()
        frame.index.names = names
        frame.to_csv(buf)
        files[f"{number:02d}-{slug}.csv"] = buf.getvalue()
    return files


#: The leading column of :func:`tidy_csv` (a choice task's stratum may not take this name).
TABLE_COLUMN = "table"


def tidy_csv(tables: Sequence[Table]) -> str:
    """Several tables as one CSV for ``pandas.read_csv``: ``table`` (the title), then each table's row labels (its
    index levels as columns, ``row`` for an unnamed one) and cells, under the union of all their column names in
    first-seen order. A table without rows still gives one line (its title), so no table silently disappears."""
    # deferred: pandas loads only when `tidy_csv` runs (this module loads with the CLI)
    import pandas as pd

    frames = []
    for table in tables:
        frame = table.frame.copy()
        frame.columns = [_label(c) for c in frame.columns]
        names = [_index_name(n, i) for i, n in enumerate(frame.index.names)]
        frame.index = frame.index.set_names(names)
        flat = frame.reset_index() if not frame.empty else pd.DataFrame([{}])
        flat = _as_written(flat) if not frame.empty else flat
        flat.insert(0, TABLE_COLUMN, table.title)
        frames.append(flat)
    buf = io.StringIO()
    pd.concat(frames, ignore_index=True, sort=False).to_csv(buf, index=False)
    return buf.getvalue()


def _as_written(frame: pd.DataFrame) -> pd.DataFrame:
    """The cells as text, exactly as ``to_csv`` writes this table alone (an integer column stays ``3``, not ``3.0``
    beside another table's empty cells)."""
    # deferred: pandas loads only when `_as_written` runs (this module loads with the CLI)
    import pandas as pd

    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    buf.seek(0)
    return pd.read_csv(buf, dtype=str, keep_default_na=False)


def _index_name(name: object, level: int) -> str:
    """A row-label column's name: the index's own, ``number`` for ``#`` (a comment mark to some CSV readers),
    ``row`` (``row2`` ...) when unnamed."""
    if name is None or str(name) == "":
        return "row" if level == 0 else f"row{level + 1}"
    return "number" if str(name) == "#" else str(name)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 participant"``, ``"2 participants"``: counts said the way a reader says them."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
