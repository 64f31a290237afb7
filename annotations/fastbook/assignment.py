"""Which curator curates which fastbook question: the assignment plan (a small CSV a lead can read and edit).

Splitting rule (``make_plan``): the chapters are put in a seeded random order, the questions are listed chapter by
chapter in that order, and the list is cut into one contiguous block per curator, the blocks differing by at most one
question. So every curator gets the same share, whole chapters stay with one curator (only the chapters at the at
most ``curators - 1`` cuts are shared), and a curator reads few chapters. Then an ``overlap`` share of all questions
(an equal number from each curator's block, drawn with the same seed) is given to a second curator as well (the one
with the fewest questions so far), so that agreement can be measured on them (``benchlab compare
fastbook``, then merged with ``--review``).

The plan file is ``curator,chapter,question_number`` with that header, one row per (curator, question); read back,
every problem (unknown question, bad number, duplicate row, missing column) is one error naming the file and line.
"""

from __future__ import annotations

import csv
import io
import itertools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError, read_error
from benchlab.data.fastbook.benchmark import Benchmark, QuestionId
from benchlab.data.text_io import decode_utf8

HEADER = ("curator", "chapter", "question_number")


@dataclass
class AssignmentPlan:
    """Rows of (curator, question), in file order; ``curators`` in the order they first appear."""

    rows: list[tuple[str, QuestionId]] = field(default_factory=list)

    @property
    def curators(self) -> list[str]:
        return list(dict.fromkeys(name for name, _ in self.rows))

    def queue(self, curator: str) -> list[QuestionId]:
        """The questions given to ``curator``, in plan order."""
        return [qid for name, qid in self.rows if name == curator]

    def shared(self) -> list[QuestionId]:
        """Questions given to more than one curator (their agreement can be measured)."""
        counts: dict[QuestionId, int] = {}
        for _, qid in self.rows:
            counts[qid] = counts.get(qid, 0) + 1
        return [qid for qid, n in counts.items() if n > 1]

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows((name, qid.chapter, qid.question_number) for name, qid in self.rows)
        return out.getvalue()


def parse_curators(names: Iterable[str]) -> list[str]:
    """Curator names as given (``ada,bob`` or repeated); empty or repeated names are refused."""
    curators = [part.strip() for name in names for part in name.split(",")]
    if not curators or any(not name for name in curators):
        raise BenchlabError("--curators: give one or more names separated by commas, e.g. --curators ada,bob")
    repeated = sorted({name for name in curators if curators.count(name) > 1})
    if repeated:
        raise BenchlabError(f"--curators: {', '.join(repeated)} given twice")
    return curators


def make_plan(benchmark: Benchmark, curators: Sequence[str], *, overlap: float = 0.0,
              seed: int | None = None) -> AssignmentPlan:
    """Split the benchmark's questions between ``curators`` (see the module docstring for the rule)."""
    if not curators:
        raise BenchlabError("no curators given")
    if not 0.0 <= overlap <= 1.0:
        raise BenchlabError(f"--overlap must be between 0 and 1 (a share of the questions), not {overlap}")
    if overlap > 0 and len(curators) < 2:
        raise BenchlabError("--overlap needs at least two curators (a shared question is curated twice)")
    rng = random.Random(seed)
    chapters = list(benchmark.chapters)
    rng.shuffle(chapters)
    ordered = [q.id for chapter in chapters for q in benchmark if q.chapter == chapter]
    n, k = len(ordered), len(curators)
    given: dict[str, list[QuestionId]] = {}
    start = 0
    for i, name in enumerate(curators):
        size = n // k + (1 if i < n % k else 0)
        given[name] = ordered[start:start + size]
        start += size
    owner = {qid: name for name, qids in given.items() for qid in qids}
    # Each curator's block gives an equal share of the shared questions, so the totals stay balanced too.
    shared_total = round(overlap * n)
    drawn: list[list[QuestionId]] = []
    for i, name in enumerate(curators):
        quota = min(len(given[name]), shared_total // k + (1 if i < shared_total % k else 0))
        drawn.append(rng.sample(given[name], quota))
    # Taken in turns from each block, so that every curator keeps receiving while giving.
    picked = [qid for turn in itertools.zip_longest(*drawn) for qid in turn if qid is not None]
    for qid in picked:
        second = min((name for name in curators if name != owner[qid]), key=lambda name: len(given[name]))
        given[second].append(qid)
    position = {qid: i for i, qid in enumerate(benchmark.ids())}
    return AssignmentPlan([(name, qid) for name in curators
                           for qid in sorted(given[name], key=lambda q: position[q])])


def write_plan(path: Path, plan: AssignmentPlan) -> None:
    """Write the plan atomically; an existing file is never replaced (it may already be handed out)."""
    if path.exists():
        raise BenchlabError("already exists; the plan may be in use: choose another --out or delete it first", path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, plan.to_csv())
    except OSError as exc:
        raise BenchlabError(f"cannot write the plan ({exc.strerror or exc})", path) from exc


def read_plan(path: Path, benchmark: Benchmark | None = None) -> AssignmentPlan:
    """Read a plan file; with ``benchmark``, every question must be in it. Errors name the file and line."""
    try:
        text = decode_utf8(path.read_bytes(), path)  # bad bytes name their line
    except OSError as exc:
        raise read_error(exc, path, "a plan file (CSV)") from exc
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or tuple(cell.strip() for cell in header) != HEADER:
        raise BenchlabError(f"the first line must be the header {','.join(HEADER)}", path, 1)
    plan = AssignmentPlan()
    seen: set[tuple[str, QuestionId]] = set()
    known = set(benchmark.ids()) if benchmark is not None else None
    for cells in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(HEADER):
            raise BenchlabError(f"expected 3 columns ({','.join(HEADER)}), found {len(cells)}", path, line)
        name, chapter, number = (cell.strip() for cell in cells)
        if not name:
            raise BenchlabError("empty curator name", path, line)
        try:
            qid = QuestionId(int(chapter), int(number))
        except ValueError:
            raise BenchlabError(f"chapter and question_number must be whole numbers, not {chapter!r}, {number!r}",
                                path, line) from None
        if known is not None and qid not in known:
            raise BenchlabError(f"no question {qid.chapter}.{qid.question_number} in the benchmark", path, line)
        if (name, qid) in seen:
            raise BenchlabError(f"question {qid.chapter}.{qid.question_number} given to {name} twice", path, line)
        seen.add((name, qid))
        plan.rows.append((name, qid))
    if not plan.rows:
        raise BenchlabError("the plan assigns no questions", path)
    return plan
