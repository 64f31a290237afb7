"""``booksort make`` without holding every trial until the end: each book's trials go to a spool as soon as they
are made, and each output file is assembled from the spool one book at a time.

Why: the published layouts put all books of a configuration in one file, sorted by book; holding every record
(excerpt texts repeated per row, as pydantic models and then as one DataFrame) cost ~45 MB per book (issue 24).
The spool is one parquet file per (configuration, book) in a hidden folder inside the output folder, removed at
the end. The files written are the same as :func:`~benchlab.data.sort.writers.write_layout` writes for all the
records at once: same rows in the same order, same CSV index numbering and names; each output file is written to
a temporary name and renamed into place when complete.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from benchlab.data.atomic import fsync_dir
from benchlab.data.errors import BenchlabError
from benchlab.data.sort import records as published
from benchlab.data.sort.arrow_tables import columns_table, pandas_metadata_known, with_pandas_metadata
from benchlab.data.sort.records import BookSortRecord, records_columns

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

Config = tuple[int, int]
LAYOUTS = ("parquet", "csv", "jsonl")


class _Output:
    """One output file written under a temporary name in its folder, renamed into place by :meth:`publish`."""

    def __init__(self, folder: Path, name: str) -> None:
        self.folder = folder
        self.name = name
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
        os.close(fd)
        self.tmp = Path(tmp)

    def publish(self, name: str | None = None) -> Path:
        target = self.folder / (name or self.name)
        with self.tmp.open("rb+") as handle:
            os.fsync(handle.fileno())
        mask = os.umask(0)
        os.umask(mask)
        with contextlib.suppress(OSError):
            os.chmod(self.tmp, 0o666 & ~mask)
        os.replace(self.tmp, target)
        fsync_dir(self.folder)
        return target

    def discard(self) -> None:
        self.tmp.unlink(missing_ok=True)


class StreamingLayouts:
    """Collects trials book by book (:meth:`add`) and writes the layouts (:meth:`finish`).

    Use as a context manager: the spool and any unfinished output are removed whatever happens.
    """

    def __init__(self, out: str | Path, layouts: Sequence[str]) -> None:
        unknown = [name for name in layouts if name not in LAYOUTS]
        if unknown:
            raise ValueError(f"unknown layout {unknown[0]!r}")
        self.folder = Path(out)
        self.layouts = tuple(layouts)
        self._made_folder = False
        self._spool_folder: Path | None = None
        self._chunks: dict[Config, list[tuple[int, str, Path]]] = {}  # (book, split, spool file) in add order
        self._count = 0
        self._pending: list[_Output] = []

    def __enter__(self) -> StreamingLayouts:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def _spool(self) -> Path:
        """The spool folder, made (with the output folder) when the first trials arrive: a make that fails before
        that leaves nothing behind."""
        if self._spool_folder is None:
            try:
                self._made_folder = not self.folder.exists()
                self.folder.mkdir(parents=True, exist_ok=True)
                self._spool_folder = Path(tempfile.mkdtemp(prefix=".booksort-make-", suffix=".spool",
                                                           dir=self.folder))
            except OSError as exc:
                raise BenchlabError(f"cannot write here: {exc.strerror or exc}", self.folder) from exc
        return self._spool_folder

    def close(self) -> None:
        for output in self._pending:
            output.discard()
        self._pending.clear()
        if self._spool_folder is not None:
            shutil.rmtree(self._spool_folder, ignore_errors=True)
            self._spool_folder = None
            if self._made_folder:
                with contextlib.suppress(OSError):
                    self.folder.rmdir()  # only when empty: a make that wrote nothing leaves no folder

    @property
    def count(self) -> int:
        """Trials added so far."""
        return self._count

    def add(self, records: Sequence[BookSortRecord]) -> None:
        """Spool ``records`` (any configurations and books); nothing of them stays in memory."""
        if not records:
            return
        # deferred: pyarrow loads only when trials are spooled
        import pyarrow as pa

        groups: dict[tuple[int, int, int, str], list[BookSortRecord]] = {}
        for r in records:
            split = "test" if r.excerpt_idx < published.N_TEST_EXCERPTS else "validation"
            groups.setdefault((r.excerpt_length, r.segment_length, r.book_idx, split), []).append(r)
        for (le, ls, book, split), part in groups.items():
            path = self._spool / f"{len(os.listdir(self._spool)):06d}.arrow"
            # Arrow IPC straight from the columns: quicker to write and read back than parquet or pandas, and
            # uncompressed (LZ4 cost ~0.03 s per book for a file that lives a few seconds); pyarrow.ipc and
            # columns_table, since feather.write_feather and pa.array import pandas
            table = columns_table(records_columns(part))
            with pa.ipc.new_file(path, table.schema) as sink:
                sink.write_table(table)
            self._chunks.setdefault((le, ls), []).append((book, split, path))
        self._count += len(records)

    def _paths_by_book(self, config: Config) -> list[dict[str, list[Path]]]:
        """A configuration's spool files by book (in book order) and split (``all`` too), each list in add order."""
        by_book: dict[int, dict[str, list[Path]]] = {}
        for book, split, path in self._chunks[config]:
            for key in (split, "all"):
                by_book.setdefault(book, {}).setdefault(key, []).append(path)
        return [by_book[book] for book in sorted(by_book)]

    def _books(self, config: Config) -> Iterator[pd.DataFrame]:
        """A configuration's rows, one frame per book in book order, sorted as ``write_layout`` sorts them."""
        # deferred: pandas loads only for the layouts written through it
        import pandas as pd

        for paths in self._paths_by_book(config):
            parts = [pd.read_feather(p) for p in paths["all"]]
            frame = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
            yield frame.sort_values(["book_idx", "distance_bin", "excerpt_idx"], kind="stable").reset_index(drop=True)

    def finish(self) -> list[Path]:
        """Write every layout of every configuration; returns the files written (in ``write_layout``'s order)."""
        written: list[Path] = []
        for config in sorted(self._chunks):
            for layout in self.layouts:
                written.extend(getattr(self, f"_write_{layout}")(config))
        return written

    def _write_parquet(self, config: Config) -> list[Path]:
        # deferred: pyarrow loads only when parquet is written
        import pyarrow.parquet as pq

        le, ls = config
        outputs = {split: _Output(self.folder, f"{split}_e{le}_s{ls}.parquet") for split in ("test", "validation")}
        self._pending.extend(outputs.values())
        writers: dict[str, pq.ParquetWriter] = {}
        schema: pa.Schema | None = None
        for split, table in self._parquet_parts(config):
            schema = schema or table.schema
            if split not in writers:
                writers[split] = pq.ParquetWriter(outputs[split].tmp, schema)
            writers[split].write_table(table.cast(schema))
        for split, output in outputs.items():
            if split not in writers and schema is not None:
                writers[split] = pq.ParquetWriter(output.tmp, schema)  # an empty split is still written, as before
        for writer in writers.values():
            writer.close()
        written = [output.publish() for output in outputs.values()]
        self._pending = [p for p in self._pending if p not in outputs.values()]
        return written

    def _parquet_parts(self, config: Config) -> Iterator[tuple[str, pa.Table]]:
        """(split, table) per book in book order, the tables ``DataFrame.to_parquet`` would write: straight from
        the spool with pandas' metadata (pandas not imported) where that metadata is known, else through pandas."""
        # deferred: pyarrow loads only when parquet is written
        import pyarrow as pa

        if not pandas_metadata_known():
            for frame in self._books(config):
                test = frame["excerpt_idx"] < published.N_TEST_EXCERPTS
                for split, part in (("test", frame[test]), ("validation", frame[~test])):
                    yield split, pa.Table.from_pandas(part.reset_index(drop=True), preserve_index=False)
            return
        # The spool holds each split apart; a stable sort of one split is the stable sort of all, filtered.
        for paths in self._paths_by_book(config):
            tables = {split: _sorted_table(paths[split]) for split in ("test", "validation") if split in paths}
            schema = next(iter(tables.values())).schema
            for split in ("test", "validation"):  # a split a book lacks is written empty, as through pandas
                table = tables[split] if split in tables else schema.empty_table()
                yield split, with_pandas_metadata(table)

    def _write_csv(self, config: Config) -> list[Path]:
        le, ls = config
        names = ("books", "excerpts", "segments")
        outputs = {name: _Output(self.folder, name) for name in names}
        self._pending.extend(outputs.values())
        offsets = dict.fromkeys(names, 0)
        n = 0
        handles: dict[str, IO[str]] = {name: outputs[name].tmp.open("w", encoding="utf-8", newline="")
                                       for name in names}
        try:
            for frame in self._books(config):
                n = max(n, int(frame["excerpt_idx"].max()) + 1)
                books = frame[published.BOOK_COLUMNS].drop_duplicates("book_idx")
                excerpts = frame[published.EXCERPT_COLUMNS].drop_duplicates(["book_idx", "excerpt_idx"])
                excerpts = excerpts.sort_values(["book_idx", "excerpt_idx"])
                segment_columns = [*published.SEGMENT_COLUMNS, *(["design"] if "design" in frame.columns else [])]
                for name, part in (("books", books), ("excerpts", excerpts), ("segments", frame[segment_columns])):
                    part = part.reset_index(drop=True)
                    part.index = part.index + offsets[name]
                    part.to_csv(handles[name], header=offsets[name] == 0)
                    offsets[name] += len(part)
        finally:
            for handle in handles.values():
                handle.close()
        written = [outputs[name].publish(f"{name}_{le}-s{ls}-n{n}.csv") for name in names]
        self._pending = [p for p in self._pending if p not in outputs.values()]
        return written

    def _write_jsonl(self, config: Config) -> list[Path]:
        le, ls = config
        output = _Output(self.folder, f"booksort_e{le}_s{ls}.jsonl")
        self._pending.append(output)
        with output.tmp.open("w", encoding="utf-8") as handle:
            for frame in self._books(config):
                for row in frame.to_dict("records"):
                    handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        written = [output.publish()]
        self._pending.remove(output)
        return written


def _sorted_table(paths: Sequence[Path]) -> pa.Table:
    """The spool files of one book and split as one table, sorted as ``write_layout`` sorts (a stable sort)."""
    # deferred: pyarrow loads only when trials are written
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.feather as feather

    parts = [feather.read_table(p) for p in paths]
    table = parts[0] if len(parts) == 1 else pa.concat_tables(parts)
    keys = [(name, "ascending") for name in ("book_idx", "distance_bin", "excerpt_idx")]
    return table.take(pc.sort_indices(table, sort_keys=keys))  # Arrow's sort_indices is stable
