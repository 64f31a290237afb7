"""The parquet tables that ``DataFrame.to_parquet`` writes for BookSORT trials, made from Arrow tables without pandas.

Why: ``booksort make`` writes parquet by default, and importing pandas only to hand the spool's Arrow tables back
to pyarrow cost ~0.5 CPU-seconds of a ~5 s run. A parquet file written from a DataFrame differs from one written
from the same Arrow columns in two ways only: pandas' string columns become ``large_string``, and the schema carries
pandas' metadata (the column names and types, pyarrow's and pandas' versions). Both are reproduced here, so the files
stay byte for byte the ones written through pandas (``tests/test_speed_booksort_stream.py`` compares them). The
metadata is written as pandas 3 writes it; with another pandas installed the writer goes through pandas as before.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa


@cache
def pandas_version() -> str | None:
    """The installed pandas' version, without importing pandas (None when it is not installed)."""
    # deferred: importlib.metadata is loaded already by the console script; a library caller pays it once
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pandas")
    except PackageNotFoundError:
        return None


def pandas_metadata_known() -> bool:
    """Whether :func:`with_pandas_metadata` writes the metadata the installed pandas would (pandas 3)."""
    found = pandas_version()
    return found is not None and found.split(".")[0] == "3"


def columns_table(columns: dict[str, list[Any]]) -> pa.Table:
    """An Arrow table of ``columns`` (lists of int, float or str; strings as ``large_string``, as pandas writes
    them), built from numpy buffers: ``pa.array`` and ``pa.table`` on Python lists import pandas (~0.5 s) to ask
    whether the data is a Series."""
    # deferred: pyarrow and numpy load only when trials are spooled
    import numpy as np
    import pyarrow as pa

    arrays = []
    for name, values in columns.items():
        kinds = {type(v) for v in values}
        if kinds <= {int}:
            data = np.array(values, dtype=np.int64)
            arrays.append(pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)]))
        elif kinds <= {float}:
            data = np.array(values, dtype=np.float64)
            arrays.append(pa.Array.from_buffers(pa.float64(), len(data), [None, pa.py_buffer(data)]))
        elif kinds <= {str}:
            encoded = [v.encode("utf-8") for v in values]
            offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
            np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
            buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
            arrays.append(pa.Array.from_buffers(pa.large_string(), len(encoded), buffers))
        else:
            raise ValueError(f"column {name!r} holds {sorted(k.__name__ for k in kinds)}, not ints, floats or str")
    return pa.Table.from_arrays(arrays, names=list(columns))


def with_pandas_metadata(table: pa.Table) -> pa.Table:
    """``table`` (int64, float64 and large_string columns) with the schema metadata that
    ``pa.Table.from_pandas(DataFrame(table), preserve_index=False)`` gives it under pandas 3."""
    # deferred: pyarrow loads only when parquet is written
    import pyarrow as pa

    kinds = {pa.int64(): ("int64", "int64"), pa.float64(): ("float64", "float64"),
             pa.large_string(): ("object", "str")}  # pandas 3's str dtype, as pyarrow records it
    columns = []
    for field in table.schema:
        if field.type not in kinds:
            raise ValueError(f"column {field.name!r} of type {field.type} has no pandas metadata written here")
        pandas_type, numpy_type = kinds[field.type]
        columns.append({"name": field.name, "field_name": field.name, "pandas_type": pandas_type,
                        "numpy_type": numpy_type, "metadata": None})
    metadata = {"index_columns": [], "column_indexes": [], "columns": columns, "attributes": {},
                "creator": {"library": "pyarrow", "version": pa.__version__}, "pandas_version": pandas_version()}
    return table.replace_schema_metadata({b"pandas": json.dumps(metadata).encode("utf8")})
