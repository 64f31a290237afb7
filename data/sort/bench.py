"""Generation speed of our BookSORT generator against the published script (the four small configurations, the
nine books), for the closing notes: one line per book as it is done, then the total and the ratio."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from benchlab.data.errors import BenchlabError
from benchlab.data.sort.books import prepare
from benchlab.data.sort.generator import generate_many
from benchlab.data.sort.settings import booksort_texts_dir

#: The published data set's configurations (L_E, L_S) that the published script's timing covers.
STANDARD_CONFIGS = ((250, 20), (250, 50), (1000, 20), (1000, 50))


def bench_booksort(folder: Path | None, published_seconds: float, emit: Callable[[str], None]) -> None:
    """Generate the standard configurations for every ``*.txt`` book in ``folder``, emitting timings."""
    folder = folder or booksort_texts_dir()
    files = sorted(folder.glob("*.txt")) if folder.is_dir() else []
    if not files:
        raise BenchlabError("no book texts here (pass --texts FOLDER)", folder)
    started = time.perf_counter()
    cpu_started = time.process_time()
    n = 0
    for f in files:
        t0 = time.perf_counter()
        book = prepare(f)
        recs, _, _ = generate_many(book, STANDARD_CONFIGS)
        n += len(recs)
        emit(f"  {book.book_idx} {book.title[:40]:<40} {len(recs):>5} trials  {time.perf_counter() - t0:6.2f} s")
    total = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    load = os.getloadavg()[0]
    emit(f"generate 4 configurations x {len(files)} books: {n:,} trials in {total:.1f} s wall, {cpu:.1f} s CPU "
         f"(load average {load:.1f} on {os.cpu_count()} CPUs)")
    emit(f"published script: ~{published_seconds:.0f} s for the same job -> {published_seconds / total:.1f}x "
         "faster (pass --published-seconds with its time measured on this machine for a fair ratio)")
