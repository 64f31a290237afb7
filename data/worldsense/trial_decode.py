"""The scoring fields of a WorldSense trials file as one arrow table, decoded the cheapest way for the CPUs at hand.

Why two ways: with idle cores, ``indexed_bzip2`` decodes in parallel while arrow parses, which finishes soonest.
On one core (``taskset``, or the other core busy) every extra thread only adds switching: arrow's reader thread
pulling blocks through a Python file object, its parser threads and the decoder then take turns on the same CPU
and the GIL, about 0.3 CPU-seconds more than the work itself on the published test set. So there the file is
decoded in the calling thread, a few MB at a time, and each run of whole lines is parsed by arrow without threads
(:func:`sequential_table`): the bzip2 decoder and one JSON parse, nothing else, and never the 70 MB of text at once.
Text a session's index already holds is parsed the same way, without threads (:func:`text_table`).

Both ways check that every byte is UTF-8 (arrow skips the fields it is not asked for, so bad bytes there would pass
unseen) and return ``None`` for anything arrow cannot read; the validating reader then names the file and line.
"""

from __future__ import annotations

import bz2
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.data.text_io import Utf8CheckedReader, check_utf8

if TYPE_CHECKING:
    import pyarrow as pa

#: Decompressed bytes per parse in :func:`sequential_table`: big enough that arrow's per-call cost vanishes,
#: small enough that the text is never held whole (~5 % of the published test set).
CHUNK_BYTES = 4 << 20


def decoder_threads() -> int:
    """Decoding threads: one per idle CPU this process may run on (at most 4).

    Parallel decoding only pays on idle cores: two threads on one core (``taskset``) or beside a busy core cost
    nearly twice the CPU of the standard library's single-threaded decoder (6.6 s against 3.2 s for the published
    test set) and finish no sooner. So the CPUs this process may use (not the machine's), minus the busier of the
    load average and the tasks running right now besides this one (the load average lags a minute behind: a job
    started a second ago already takes a core).
    """
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        busy = os.getloadavg()[0]
    except OSError:  # no load average on this system: assume the CPUs are free
        busy = 0.0
    idle = usable - max(busy, float(_running_others()))
    return max(1, min(4, usable, int(idle + 0.5)))


def _running_others() -> int:
    """Tasks running or ready to run now, this one excluded (Linux's ``/proc/loadavg``; 0 where unknown)."""
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            running = int(handle.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return 0
    return max(0, running - 1)


def trials_schema() -> pa.Schema:
    """The fields scoring reads (either gold field may be present; the caller checks which)."""
    # deferred: pyarrow loads only when a trials file is decoded (the scoring modules load this one without it)
    import pyarrow as pa

    return pa.schema(
        [
            ("Key", pa.int64()),
            ("tuple_ID", pa.string()),
            ("problemname", pa.string()),
            ("problemsize", pa.int64()),
            ("expectedresp", pa.list_(pa.string())),
            ("goldresp_obfusc", pa.string()),
            ("goldresp", pa.string()),
        ]
    )


def decoded_table(file: Path, raw: bytes, text: bytes | None = None) -> pa.Table | None:
    """The scoring fields of every trial (``text``: the decompressed file, when already at hand); ``None`` when
    arrow cannot read the file, a byte is not UTF-8, or it holds no trial."""
    if decoder_threads() < 2:
        if text is not None:
            return text_table(text)
        if file.suffix == ".bz2":
            return sequential_table(raw)
    return streamed_table(file, raw, text)


def decoded_runs(file: Path, raw: bytes, text: bytes | None = None) -> Iterator[tuple[bytes, int]]:
    """The decompressed file as runs of whole lines ``(data, end)`` (see :func:`_bz2_runs`), decoded the cheapest
    way for the CPUs at hand: in this thread on one core, by ``indexed_bzip2``'s threads beside idle cores (this
    thread then reads what they decoded). Damaged files raise as ``bz2.open`` does."""
    if text is not None or file.suffix != ".bz2":
        whole = raw if text is None else text
        yield whole, len(whole)
    elif decoder_threads() < 2:
        yield from _decompressed_runs(raw)
    else:
        with open_decompressed(file, raw) as reader:
            yield from _line_runs(reader)


def _line_runs(reader: Any) -> Iterator[tuple[bytes, int]]:
    """Runs of whole lines read from a binary file object, :data:`CHUNK_BYTES` at a time."""
    pending = b""
    while True:
        out = reader.read(CHUNK_BYTES)
        if not out:
            break
        run = pending + out if pending else out
        cut = run.rfind(b"\n") + 1
        pending = run[cut:]
        if cut:
            yield run, cut
    if pending:
        yield pending, len(pending)


def text_table(text: bytes) -> pa.Table | None:
    """Parse already decompressed text (an index's, whose lines were checked) in the calling thread."""
    # deferred: pyarrow loads only when a trials file is decoded
    import pyarrow as pa
    import pyarrow.json as pj

    try:
        table = pj.read_json(pa.BufferReader(text), parse_options=_parse_options(),
                             read_options=pj.ReadOptions(block_size=CHUNK_BYTES, use_threads=False),
                             memory_pool=pa.system_memory_pool())
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError, ValueError):
        return None
    return _non_empty([table])


def _parse_options() -> Any:
    # deferred: pyarrow loads only when a trials file is decoded
    import pyarrow.json as pj

    return pj.ParseOptions(explicit_schema=trials_schema(), unexpected_field_behavior="ignore")


def _non_empty(tables: list[pa.Table]) -> pa.Table | None:
    # deferred: pyarrow loads only when a trials file is decoded
    import pyarrow as pa

    if not tables or not sum(t.num_rows for t in tables):
        return None
    return pa.concat_tables(tables)


def _decompressed_runs(raw: bytes) -> Any:
    """:func:`_bz2_runs`, decoded by ``indexed_bzip2`` on one thread where installed: the same bytes for about
    10-25 % less CPU than the standard library's decoder on this 2-core machine while other work runs (about the
    same on an idle one; 6 alternating rounds at load ~3: 1.75-5.1 s against 1.9-5.6 s)."""
    try:
        # deferred: indexed_bzip2 may be missing (then the standard library's decoder runs)
        import indexed_bzip2
    except ImportError:
        yield from _bz2_runs(raw)
        return
    with indexed_bzip2.open(io.BytesIO(raw), parallelization=1) as reader:  # one thread: this one
        yield from _line_runs(reader)


def _bz2_runs(raw: bytes) -> Any:
    """The decompressed file in runs of whole lines (about :data:`CHUNK_BYTES` each; the last may lack its
    newline), as ``(data, end)``: the run is ``data[:end]`` (the rest begins the next run; nothing is copied).

    Like ``bz2.open``: every stream of a multi-stream file is read, bytes after the last stream that do not start
    another are ignored, and a damaged or cut file raises ``OSError``/``EOFError``."""
    pending = b""
    data = raw
    first = True
    while data:
        decoder = bz2.BZ2Decompressor()
        try:
            out = decoder.decompress(data, max_length=CHUNK_BYTES)
        except OSError:
            if first:
                raise
            break  # not another stream: trailing bytes, ignored as bz2.open does
        first = False
        while True:
            run = pending + out if pending else out
            cut = run.rfind(b"\n") + 1
            pending = run[cut:]
            if cut:
                yield run, cut
            if decoder.eof:
                break
            if decoder.needs_input:
                raise EOFError("compressed file ended before the end-of-stream marker was reached")
            out = decoder.decompress(b"", max_length=CHUNK_BYTES)
        data = decoder.unused_data
    if pending:
        yield pending, len(pending)


def sequential_table(raw: bytes) -> pa.Table | None:
    """Decode ``raw`` (bzip2) and parse it in the calling thread, one run of whole lines at a time."""
    # deferred: pyarrow loads only when a trials file is decoded
    import pyarrow as pa
    import pyarrow.json as pj

    options = _parse_options()
    tables = []
    try:
        for data, end in _decompressed_runs(raw):
            if not data.isascii():
                data[:end].decode("utf-8")  # runs end at a newline, which never splits a character
            run = pa.py_buffer(data).slice(0, end)  # (blank runs parse to no rows)
            read = pj.ReadOptions(block_size=end, use_threads=False)  # one block: no line straddles two
            tables.append(pj.read_json(pa.BufferReader(run), parse_options=options, read_options=read,
                                       memory_pool=pa.system_memory_pool()))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError, EOFError, ValueError, RuntimeError):
        return None
    return _non_empty(tables)


def open_decompressed(file: Path, raw: bytes) -> Any:
    """A binary file object over the decompressed text (``indexed_bzip2``'s parallel decoder when installed)."""
    if file.suffix != ".bz2":
        return io.BytesIO(raw)
    threads = decoder_threads()
    if threads < 2:
        return bz2.open(io.BytesIO(raw), "rb")
    try:
        # deferred: indexed_bzip2 may be missing (then bz2 decodes the file)
        import indexed_bzip2

        return indexed_bzip2.open(io.BytesIO(raw), parallelization=threads)
    except ImportError:
        return bz2.open(io.BytesIO(raw), "rb")


def open_checked(file: Path, raw: bytes) -> Any:
    """The decompressed text, checked to be UTF-8 as arrow reads it (arrow skips the fields it does not need)."""
    if file.suffix != ".bz2":
        check_utf8(raw, file)  # raises the file:line error at once; the stream then needs no checking
        return io.BytesIO(raw)
    return Utf8CheckedReader(open_decompressed(file, raw))


def streamed_table(file: Path, raw: bytes, text: bytes | None = None) -> pa.Table | None:
    """Parse with arrow's streaming reader, which pulls 1 MB blocks from the (parallel) decompressor, so the 70 MB
    of text is never held at once."""
    # deferred: pyarrow loads only when a trials file is decoded
    import pyarrow as pa
    import pyarrow.json as pj

    try:
        with (io.BytesIO(text) if text is not None else open_checked(file, raw)) as handle:
            reader = pj.open_json(pa.PythonFile(handle, mode="r"), parse_options=_parse_options(),
                                  read_options=pj.ReadOptions(block_size=1 << 20),
                                  memory_pool=pa.system_memory_pool())
            batches = list(reader)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError, EOFError, ValueError, RuntimeError):
        return None
    return _non_empty([pa.Table.from_batches(batches)]) if batches else None
