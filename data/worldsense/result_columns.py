"""Fast columnar reading of WorldSense results files (``Key``/``resp`` lines), for scoring.

Apart from :mod:`benchlab.data.worldsense.columns` (the trials' side) so that each stays one reader: the published
form is read by the compact reader, anything else by pyarrow's JSON reader with an explicit schema, and a file
neither accepts line by line with the validating reader, which accepts it or names the file and line. Large files
(a model's run) are cached by the SHA-256 of their bytes in the same cache folder as the trials.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np

from benchlab.data.errors import BenchlabError, read_bytes
from benchlab.data.file_digest import read_with_sha256
from benchlab.data.text_io import read_text_with_tail
from benchlab.data.worldsense.columns import (
    CACHE_VERSION,
    ResultColumns,
    arrow_numbers,
    cache_folder,
    dictionary_encode,
)
from benchlab.data.worldsense.compact import read_compact_results

RESULTS_CACHE_MIN_BYTES = 1 << 20  # big (model) files only; a participant's file parses in milliseconds


def _results_cache_path(digest: str) -> Path:
    return cache_folder() / f"results-v{CACHE_VERSION}-{digest}.npz"


def _store_arrays(cache_file: Path, **arrays: np.ndarray) -> None:
    """Write a cache entry atomically; a cache that cannot be written is simply skipped."""
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_name(f".{cache_file.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as handle:
            np.savez(handle, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, cache_file)
    except OSError:
        pass


def read_result_columns(path: str | Path, prompting: str, modelname: str, *, cache: bool = True) -> ResultColumns:
    """Read one results file; a torn last line (a killed writer) is skipped with a note, anything else bad raises.

    Large files in the published form are cached by content (SHA-256), like the trials.
    """
    p = Path(path)
    raw, digest = read_with_sha256(p, lambda: read_bytes(p, "a results file"))
    cache_file = _results_cache_path(digest) if cache and len(raw) >= RESULTS_CACHE_MIN_BYTES else None
    content = digest if cache_file is not None else None
    if cache_file is not None and cache_file.exists():
        try:
            with np.load(cache_file, allow_pickle=False) as data:
                names = bytes(data["values"]).decode("utf-8").split("\0")
                return ResultColumns(prompting, modelname, data["keys"], data["codes"], names, source=p,
                                     content_sha256=content)
        except Exception:  # a damaged cache entry is rebuilt, never trusted
            cache_file.unlink(missing_ok=True)
    fast = _fast_results(raw)
    if fast is not None:
        keys, codes, values = fast
        if cache_file is not None:
            _store_arrays(cache_file, keys=keys, codes=codes,
                          values=np.frombuffer("\0".join(values).encode("utf-8"), dtype=np.uint8))
        return ResultColumns(prompting, modelname, keys, codes, values, source=p, content_sha256=content)
    keys_list, resps_list, notes = _slow_results(p)
    return ResultColumns.from_pairs(prompting, modelname, keys_list, resps_list, source=p, notes=notes)


def _fast_results(raw: bytes) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    if not raw.strip():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32), []
    if not raw.endswith(b"\n"):
        return None  # possibly a torn tail: let the careful reader decide
    compact = read_compact_results(raw)  # checks every byte of the published form, so it needs no UTF-8 pass
    if compact is not None:
        return compact
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None  # the careful reader names the line
    # deferred: pyarrow loads only when `_fast_results` runs (data.worldsense.scoring loads this module without it)
    import pyarrow as pa
    import pyarrow.json as pj

    schema = pa.schema([("Key", pa.int64()), ("resp", pa.string())])
    options = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    try:
        # Small blocks and the system allocator keep the peak memory low (arrow's pool keeps what it once took).
        table = pj.read_json(io.BytesIO(raw), parse_options=options,
                             read_options=pj.ReadOptions(block_size=1 << 20, use_threads=False),
                             memory_pool=pa.system_memory_pool())
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
    if table.column("Key").null_count or table.column("resp").null_count:
        return None
    encoded = dictionary_encode(table.column("resp").combine_chunks())
    values = [str(v) for v in encoded.dictionary.to_pylist()]
    return arrow_numbers(table.column("Key")), arrow_numbers(encoded.indices).astype(np.int32), values


def _slow_results(path: Path) -> tuple[list[int], list[str], list[str]]:
    """Line-by-line reading with one precise message per problem."""
    # deferred: pydantic loads only for a file the fast readers decline
    from pydantic import ValidationError

    from benchlab.data.jsonl import describe_validation_error
    from benchlab.data.worldsense.records import ResultLine

    keys: list[int] = []
    resps: list[str] = []
    notes: list[str] = []
    split = read_text_with_tail(path, "a results file")
    lines = split.text.split("\n")
    lines.pop()  # after the last newline: the tail, handled below
    torn_tail = split.tail is not None and split.tail.strip() != ""
    if torn_tail:
        lines.append(split.tail or "")
    for index, text in enumerate(lines):
        lineno = index + 1
        if not text.strip():
            continue
        is_tail = torn_tail and index == len(lines) - 1
        if is_tail and split.tail_undecodable:
            notes.append(f"line {lineno} is incomplete (the writer was stopped mid-line?); ignored")
            break
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            if is_tail:
                notes.append(f"line {lineno} is incomplete (the writer was stopped mid-line?); ignored")
                break
            raise BenchlabError(f"not valid JSON ({exc.msg}, column {exc.colno})", path, lineno) from exc
        if not isinstance(obj, dict):
            raise BenchlabError(f"expected a JSON object, found {type(obj).__name__}", path, lineno)
        try:
            record = ResultLine.model_validate(obj)
        except ValidationError as exc:
            message = describe_validation_error(exc)
            if isinstance(obj.get("resp"), int | float) and not isinstance(obj.get("resp"), bool):
                message += f' (write it as a string, e.g. "{obj["resp"]}")'
            raise BenchlabError(message, path, lineno) from exc
        keys.append(record.Key)
        resps.append(record.resp)
    return keys, resps, notes
