"""``benchlab bench sort-screen``: how fast a long SORT excerpt appears, and how fast the question follows.

The trial screen runs in a child process on a pseudo-terminal, so Textual uses its real Linux driver, input thread
and output writer. The child stamps, on the monotonic clock the session records use:

* load -> first paint: from asking for the trial screen to the excerpt's onset stamp (``call_after_refresh`` after
  the first frame with the excerpt was composed and handed to the output);
* continue -> question: from the Enter key's own event time to the question's onset stamp.

The parent writes Enter ``READING_S`` after the child reports the excerpt on screen and A once the question is, and
reports key write -> question onset (pty, input thread and handler included). For comparison the child also times
the text alone on a screen, shown the naive way (one ``Static`` in a scrolling container) and in the excerpt view.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path
from typing import Any

from benchlab.data.samples import sample_path
from benchlab.data.sort.loaders import Selection, load_records
from benchlab.data.sort.records import BookSortRecord

#: Seconds between the excerpt's onset and the Enter key (the shortest plausible reading of a long excerpt).
READING_S = 1.0
#: Lines the child writes to its progress file, one per event, read by the parent to pace the keys.
_SHOWN, _ASKED, _DONE = "excerpt", "question", "done"


def long_record(words: int) -> Any:
    """A trial with a ``words``-word excerpt built from the bundled sample's real prose (no full data needed)."""
    recs = load_records(sample_path("booksort"), Selection(excerpt_length=1000, segment_length=20, distance_bin=800))
    pool: list[str] = []
    for r in recs:
        pool.extend(r.excerpt_text.split())
    while len(pool) < words:
        pool.extend(pool)
    text = pool[:words]
    first, second = words // 5, words // 5 + words // 2
    return BookSortRecord(
        book_idx=recs[0].book_idx, book_title=recs[0].book_title, num_words=recs[0].num_words, excerpt_idx=0,
        excerpt_pos=0.0, excerpt_text=" ".join(text), segment_1=" ".join(text[first:first + 20]),
        segment_2=" ".join(text[second:second + 20]), seg1_pos=first, seg2_pos=second, distance_bin=16000,
        present_seg1_first=1, excerpt_length=words, segment_length=20,
    )


def child_main(progress_path: str, result_path: str, trials: int, words: int) -> None:
    """The child: ``trials`` SORT trials with a ``words``-word excerpt, then the naive Static ``trials`` times."""
    # deferred: Textual and the SORT screens load in the measured child process only
    from benchlab.tui.sort.screen_bench_child import BenchApp

    record = long_record(words)
    with open(progress_path, "a", buffering=1, encoding="utf-8") as progress:  # open for the app's life
        BenchApp(record, trials, progress, (_SHOWN, _ASKED, _DONE), result_path).run()


class _Pty:
    """A child on a pseudo-terminal; its output is drained so it never blocks on a full terminal."""

    def __init__(self, argv: list[str], size: tuple[int, int]) -> None:
        master, slave = pty.openpty()
        cols, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color"}
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
                                     start_new_session=True)
        os.close(slave)
        self.master = master
        self.tail = bytearray()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.tail = (self.tail + data)[-2000:]

    def send(self, data: bytes) -> float:
        when = time.monotonic()
        os.write(self.master, data)
        return when

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        with contextlib.suppress(OSError):
            os.close(self.master)


def _wait_line(path: Path, line: str, child: _Pty, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and line in path.read_text(encoding="utf-8").splitlines():
            return
        if child.proc.poll() is not None:
            tail = bytes(child.tail[-600:]).decode("utf-8", "replace")
            raise RuntimeError(f"the benchmark child ended early (exit {child.proc.returncode}): {tail!r}")
        time.sleep(0.002)
    raise TimeoutError(f"no {line!r} from the benchmark child in {timeout:.0f} s")


def run_sort_screen_bench(trials: int = 10, words: int = 20_000, size: tuple[int, int] = (120, 40),
                          workdir: Path | None = None) -> dict[str, Any]:
    """Run the child on a pty and return the figures (milliseconds)."""
    folder = Path(workdir or tempfile.mkdtemp(prefix="benchlab-sort-bench-"))
    progress, result = folder / "progress.txt", folder / "result.json"
    progress.write_text("")
    argv = [sys.executable, "-c", "import sys; from benchlab.tui.sort.screen_bench import child_main; "
            "child_main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))",
            str(progress), str(result), str(trials), str(words)]
    child = _Pty(argv, size)
    writes: list[float] = []
    try:
        for i in range(trials):
            _wait_line(progress, f"{_SHOWN} {i}", child)
            time.sleep(READING_S)  # people read for tens of seconds; the question is built meanwhile
            writes.append(child.send(b"\r"))
            _wait_line(progress, f"{_ASKED} {i}", child)
            time.sleep(0.05)
            child.send(b"a")
        _wait_line(progress, _DONE, child)
        child.proc.wait(30)
    finally:
        child.close()
    data = json.loads(result.read_text(encoding="utf-8"))
    rows = data["trials"]
    ms = 1000.0
    paint = [(r["excerpt_onset"] - r["requested"]) * ms for r in rows]
    cont = [(r["question_onset"] - r["continue"]) * ms for r in rows]
    key_to_question = [(r["question_onset"] - w) * ms for r, w in zip(rows, writes, strict=True)]
    return {
        "words": words, "trials": trials, "terminal": f"{size[0]}x{size[1]}", "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "first_paint_ms": paint, "continue_to_question_ms": cont, "key_write_to_question_ms": key_to_question,
        "naive_static_first_paint_ms": [x * ms for x in data["naive_first_paint"]],
        "bare_view_first_paint_ms": [x * ms for x in data["bare_view_first_paint"]],
        "first_paint_cpu_ms": [(r["cpu_excerpt_onset"] - r["cpu_requested"]) * ms for r in rows],
        "continue_to_question_cpu_ms": [(r["cpu_question_onset"] - r["cpu_continue"]) * ms for r in rows],
    }


def summarise(figures: dict[str, Any]) -> str:
    """The printed report: median, p90 and max per measure, with the targets."""
    def line(name: str, values: list[float], target: float | None) -> str:
        values = sorted(values)
        p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
        median = statistics.median(values)
        head = f"  {name:<40} median {median:7.1f}  p90 {p90:7.1f}  max {values[-1]:7.1f} ms"
        if target is None:
            return head
        met = sum(v < target for v in values)
        return f"{head}   target < {target:.0f} ms: met by {met} of {len(values)} trials"

    out = [f"SORT trial screen, {figures['words']:,}-word excerpt, {figures['trials']} trials, terminal "
           f"{figures['terminal']}, {figures['cpus']} CPUs, load average {figures['load_average_1min']} "
           "(real pty, Linux driver; other processes on the machine slow every figure):",
           line("load -> first paint of the excerpt", figures["first_paint_ms"], 250),
           line("continue key (event time) -> question", figures["continue_to_question_ms"], 100),
           line("continue key write -> question on screen", figures["key_write_to_question_ms"], None),
           "  The text alone on a screen, to compare the two ways of showing it:",
           line("one Static in a scrolling container", figures["naive_static_first_paint_ms"], None),
           line("the line-rendered excerpt view", figures["bare_view_first_paint_ms"], None),
           "  CPU time the app itself spent on the same steps (what they take on an idle machine):",
           line("load -> first paint, CPU", figures["first_paint_cpu_ms"], 250),
           line("continue -> question, CPU", figures["continue_to_question_cpu_ms"], 100)]
    naive = statistics.median(figures["naive_static_first_paint_ms"])
    ours = statistics.median(figures["bare_view_first_paint_ms"])
    out.append(f"  excerpt view vs one Static: first paint {naive / ours:.1f}x faster (medians)")
    return "\n".join(out)
