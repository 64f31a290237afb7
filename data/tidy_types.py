"""Column types of a tidy export that R and pandas read as they are meant (numbers, times, true/false).

A results file is text, and an export that carries its columns verbatim carries them as text: R's ``read.csv``
then reads ``"True"`` as a string (``!practice`` fails: "invalid argument type") and a Parquet reader sees seen
shares, positions and clock stamps as strings. Here each column gets the type its values have:

* a column whose every value is true/false (in any spelling a results file uses) becomes nullable boolean;
* a column whose every value is a number becomes nullable integer (when all are whole) or float;
* a column with no value at all is a float column of missing values (a time nobody recorded);
* anything else stays text. ``keep_text`` names columns that stay text whatever they hold (ids such as
  ``session`` or ``item`` look numeric but are labels; R must not do arithmetic on them).

CSV spells booleans ``TRUE``/``FALSE`` (:func:`csv_ready`): the one spelling both R's ``read.csv`` (logical) and
``pandas.read_csv`` (bool) read as true/false without options; a missing value is an empty field (NA in R, NaN
or <NA> in pandas).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: what a boolean is written as in CSV (R reads these as logical, pandas as bool)
CSV_TRUE, CSV_FALSE = "TRUE", "FALSE"


def _missing(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip() == ""


def _as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "false"):
        return text == "true"
    return None


def _as_number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def typed_column(column: pd.Series) -> pd.Series:
    """``column`` as boolean, Int64 or Float64 when every present value is one; else text (``string``)."""
    # deferred: pandas loads only when an export runs (this module is imported with the export command)
    import pandas as pd

    present = [v for v in column.tolist() if not _missing(v)]
    if not present:  # nothing recorded (reading times of an LTM session): a number column of missing values
        return pd.Series([None] * len(column), index=column.index, dtype="Float64", name=column.name)
    bools = [_as_bool(v) for v in present]
    if all(b is not None for b in bools):
        return column.map(lambda v: None if _missing(v) else _as_bool(v)).astype("boolean")
    numbers = [_as_number(v) for v in present]
    if all(n is not None and math.isfinite(n) for n in numbers):
        values = column.map(lambda v: None if _missing(v) else _as_number(v))
        whole = all(float(n).is_integer() for n in numbers if n is not None)
        return pd.to_numeric(values, errors="coerce").astype("Int64" if whole else "Float64")
    return column.map(lambda v: None if _missing(v) else str(v)).astype("string")


def typed_frame(frame: pd.DataFrame, keep_text: Iterable[str] = ()) -> pd.DataFrame:
    """Every text (object) column of ``frame`` typed by :func:`typed_column`, except those in ``keep_text``
    (written as text, missing values as <NA>). Columns pandas already typed are left as they are."""
    # deferred: pandas loads only when an export runs (this module is imported with the export command)
    import pandas as pd

    text = set(keep_text)
    out = frame.copy()
    for name in out.columns:
        if not (pd.api.types.is_object_dtype(out[name]) or pd.api.types.is_string_dtype(out[name])):
            continue
        if name in text:
            out[name] = out[name].map(lambda v: None if _missing(v) else str(v)).astype("string")
        else:
            out[name] = typed_column(out[name])
    return out


def csv_ready(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its boolean columns as ``TRUE``/``FALSE`` text (empty when missing), for CSV."""
    # deferred: pandas loads only when an export runs (this module is imported with the export command)
    import pandas as pd

    out = frame.copy()
    for name in out.columns:
        if str(out[name].dtype) in ("boolean", "bool"):
            out[name] = out[name].map(lambda v: "" if pd.isna(v) else (CSV_TRUE if v else CSV_FALSE))
    return out
