"""Agreement between two curators' edited copies of the fastbook benchmark.

Components are matched by ``(chapter, question_number)`` and the component's identity (its answer text, aligned
in order: :mod:`benchlab.data.fastbook.component_match`), so a component inserted by one curator shifts nothing;
the component index reported is its position in A. Per component we report
whether the context passages are identical and how much they overlap: the passages are copied from the same
chapter, so the overlap is measured on the word sequences (matched words from ``difflib`` on the concatenated
passages): precision/recall of B against A and their F1 (Dice). The two flags curators set
(``explicit_context``, ``extraneous_answer``) get percent agreement and Cohen's kappa over matched components.

With the chapter texts (``chapter_N.txt`` or the notebooks), each passage is also located in its chapter (exact,
else whitespace-insensitive) and the two curators' character spans are compared: span F1 = 2 |A and B| / (|A| + |B|)
over covered characters, so a passage cut at a different sentence boundary counts by how much text it moves.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import Benchmark, Component, QuestionId, load_benchmark
from benchlab.data.fastbook.chapters import load_chapters
from benchlab.data.fastbook.component_match import align
from benchlab.data.tables import Table


@dataclass(frozen=True)
class ComponentDiff:
    """How two curators' versions of one answer component differ."""

    qid: QuestionId
    index: int
    contexts_a: tuple[str, ...]
    contexts_b: tuple[str, ...]
    explicit_a: str
    explicit_b: str
    extraneous_a: str
    extraneous_b: str
    words_a: int
    words_b: int
    matched_words: int
    chars_a: int | None = None  # characters of the chapter covered by A's passages (None: no chapter text)
    chars_b: int | None = None
    chars_shared: int | None = None
    unlocated: int = 0  # passages not found in the chapter text

    @property
    def span_f1(self) -> float:
        if self.chars_a is None or self.chars_b is None or self.chars_shared is None:
            return math.nan
        total = self.chars_a + self.chars_b
        return 2 * self.chars_shared / total if total else 1.0

    @property
    def identical(self) -> bool:
        return self.contexts_a == self.contexts_b

    @property
    def same_set(self) -> bool:
        """Same passages, possibly in another order."""
        return sorted(self.contexts_a) == sorted(self.contexts_b)

    @property
    def flags_differ(self) -> bool:
        return self.explicit_a != self.explicit_b or self.extraneous_a != self.extraneous_b

    @property
    def what_differs(self) -> str:
        parts = []
        if not self.identical:
            parts.append("order" if self.same_set else "contexts")
        if self.explicit_a != self.explicit_b:
            parts.append("explicit")
        if self.extraneous_a != self.extraneous_b:
            parts.append("extraneous")
        return ", ".join(parts)

    @property
    def precision(self) -> float:
        """Share of B's context words that A also marked."""
        return self.matched_words / self.words_b if self.words_b else (1.0 if not self.words_a else 0.0)

    @property
    def recall(self) -> float:
        """Share of A's context words that B also marked."""
        return self.matched_words / self.words_a if self.words_a else (1.0 if not self.words_b else 0.0)

    @property
    def f1(self) -> float:
        total = self.words_a + self.words_b
        return 2 * self.matched_words / total if total else 1.0


@dataclass
class CuratorAgreement:
    """Everything ``benchlab compare fastbook A B`` reports."""

    path_a: str
    path_b: str
    components: list[ComponentDiff]
    only_in_a: list[str] = field(default_factory=list)  # "chapter 1 question 3" or "... component 2"
    only_in_b: list[str] = field(default_factory=list)

    @property
    def differing(self) -> list[ComponentDiff]:
        """Components whose contexts or flags differ."""
        return [c for c in self.components if not c.identical or c.flags_differ]

    def flag_agreement(self, flag: str) -> tuple[float, float]:
        """(percent agreement, Cohen's kappa) of ``explicit`` or ``extraneous`` over matched components."""
        a = [getattr(c, f"{flag}_a") for c in self.components]
        b = [getattr(c, f"{flag}_b") for c in self.components]
        if not a:
            return (math.nan, math.nan)
        agree = sum(x == y for x, y in zip(a, b, strict=True)) / len(a)
        return (agree, stats.cohen_kappa(a, b))

    def summary_table(self) -> Table:
        n = len(self.components)
        ident = sum(c.identical for c in self.components)
        reordered = sum(c.same_set and not c.identical for c in self.components)
        words_a = sum(c.words_a for c in self.components)
        words_b = sum(c.words_b for c in self.components)
        matched = sum(c.matched_words for c in self.components)
        mean_f1 = sum(c.f1 for c in self.components) / n if n else math.nan
        pooled_f1 = 2 * matched / (words_a + words_b) if words_a + words_b else math.nan
        located = [c for c in self.components if c.chars_a is not None]
        shared_chars = sum(c.chars_shared or 0 for c in located)
        total_chars = sum((c.chars_a or 0) + (c.chars_b or 0) for c in located)
        span_pooled = 2 * shared_chars / total_chars if total_chars else math.nan
        unlocated = sum(c.unlocated for c in self.components)
        exp_pa, exp_k = self.flag_agreement("explicit")
        ext_pa, ext_k = self.flag_agreement("extraneous")
        rows = [
            ("components compared", f"{n}"),
            ("identical contexts", f"{ident} ({_pct(ident, n)})"),
            ("same passages, other order", f"{reordered}"),
            ("contexts differ", f"{n - ident} ({_pct(n - ident, n)})"),
            ("context word overlap F1, mean over components", _num(mean_f1)),
            ("context word overlap F1, pooled words", _num(pooled_f1)),
            ("chapter span overlap F1, pooled characters",
             _num(span_pooled) if located else "not computed (no chapter texts: --chapters DIR)"),
            ("passages not found in their chapter", f"{unlocated}" if located else "n/a"),
            ("explicit_context: agreement / Cohen's kappa", f"{_num(exp_pa)} / {_kappa(exp_k, exp_pa)}"),
            ("extraneous_answer: agreement / Cohen's kappa", f"{_num(ext_pa)} / {_kappa(ext_k, ext_pa)}"),
            ("only in A", f"{len(self.only_in_a)}"),
            ("only in B", f"{len(self.only_in_b)}"),
        ]
        frame = pd.DataFrame({"value": [v for _, v in rows]}, index=pd.Index([k for k, _ in rows], name="measure"))
        return Table(f"Curator agreement: A={self.path_a} B={self.path_b}", frame)

    def differences_table(self) -> Table:
        rows = []
        for c in self.differing:
            rows.append({
                "chapter": c.qid.chapter, "question": c.qid.question_number, "component": c.index,
                "differs": c.what_differs,
                "contexts A": len(c.contexts_a), "contexts B": len(c.contexts_b),
                "words A": c.words_a, "words B": c.words_b, "overlap F1": _num(c.f1),
                "span F1": _num(c.span_f1),  # n/a without chapter texts (the summary says why)
                "precision (B vs A)": _num(c.precision), "recall (B vs A)": _num(c.recall),
                "explicit A/B": f"{c.explicit_a}/{c.explicit_b}",
                "extraneous A/B": f"{c.extraneous_a}/{c.extraneous_b}",
            })
        cols = ["chapter", "question", "component", "differs", "contexts A", "contexts B", "words A", "words B",
                "overlap F1", "span F1", "precision (B vs A)", "recall (B vs A)", "explicit A/B", "extraneous A/B"]
        frame = pd.DataFrame(rows, columns=cols).set_index(["chapter", "question", "component"])
        return Table("Components whose contexts or flags differ", frame)

    def missing_table(self) -> Table:
        rows = [("A only", x) for x in self.only_in_a] + [("B only", x) for x in self.only_in_b]
        frame = pd.DataFrame({"item": [x for _, x in rows]}, index=pd.Index([w for w, _ in rows], name="where"))
        return Table("Questions or components present in one file only", frame)

    def tables(self) -> list[Table]:
        out = [self.summary_table(), self.differences_table()]
        if self.only_in_a or self.only_in_b:
            out.append(self.missing_table())
        return out


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.1f}%" if n else "n/a"


def _num(x: float) -> str:
    return "n/a" if x != x else f"{x:.3f}"


def _kappa(kappa: float, agreement: float) -> str:
    """Kappa, or why there is none: with one value used throughout by both curators chance agreement is 1 and
    kappa is undefined (not a failure to agree)."""
    if kappa == kappa:
        return f"{kappa:.3f}"
    if agreement == agreement:
        return "n/a (both curators used one value throughout)"
    return "n/a (no components compared)"


def _words(contexts: tuple[str, ...]) -> list[str]:
    return [w for text in contexts for w in text.split()]


def locate(context: str, chapter: str) -> tuple[int, int] | None:
    """Character span of a passage in its chapter: exact, else with any whitespace between words."""
    pos = chapter.find(context)
    if pos >= 0 and context:
        return (pos, pos + len(context))
    words = context.split()
    if not words:
        return None
    match = re.search(r"\s+".join(re.escape(w) for w in words), chapter)
    return (match.start(), match.end()) if match else None


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _length(spans: list[tuple[int, int]]) -> int:
    return sum(e - s for s, e in spans)


def _intersection(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    total, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def compare_components(qid: QuestionId, index: int, a: Component, b: Component,
                       chapter: str | None = None) -> ComponentDiff:
    ca, cb = tuple(a.context), tuple(b.context)
    wa, wb = _words(ca), _words(cb)
    if ca == cb:
        matched = len(wa)
    else:
        matcher = difflib.SequenceMatcher(a=wa, b=wb, autojunk=False)
        matched = sum(block.size for block in matcher.get_matching_blocks())
    spans: dict[str, int | None] = {"chars_a": None, "chars_b": None, "chars_shared": None}
    unlocated = 0
    if chapter is not None:
        found_a = [locate(t, chapter) for t in ca]
        found_b = [locate(t, chapter) for t in cb]
        unlocated = sum(x is None for x in found_a + found_b)
        ua = _union([x for x in found_a if x is not None])
        ub = _union([x for x in found_b if x is not None])
        spans = {"chars_a": _length(ua), "chars_b": _length(ub), "chars_shared": _intersection(ua, ub)}
    return ComponentDiff(qid, index, ca, cb, a.explicit_context, b.explicit_context, a.extraneous_answer,
                         b.extraneous_answer, len(wa), len(wb), matched, unlocated=unlocated, **spans)


def curator_agreement(a: Benchmark, b: Benchmark, name_a: str = "A", name_b: str = "B",
                      chapters: Mapping[int, str] | None = None) -> CuratorAgreement:
    """Compare two versions of the benchmark question by question, component by component."""
    by_id_b = {q.id: q for q in b.questions}
    ids_a = {q.id for q in a.questions}
    comps: list[ComponentDiff] = []
    only_a: list[str] = []
    only_b: list[str] = []
    for qa in a.questions:
        qb = by_id_b.get(qa.id)
        if qb is None:
            only_a.append(str(qa.id))
            continue
        text = chapters.get(qa.chapter) if chapters is not None else None
        for ia, ib in align(qa.answer_context, qb.answer_context):
            if ib is None:
                only_a.append(f"{qa.id} component {ia}")
            elif ia is None:
                only_b.append(f"{qa.id} component {ib}")
            else:
                comps.append(compare_components(qa.id, ia, qa.answer_context[ia], qb.answer_context[ib], text))
    only_b.extend(str(q.id) for q in b.questions if q.id not in ids_a)
    return CuratorAgreement(name_a, name_b, comps, only_a, only_b)


def compare_files(path_a: str | Path, path_b: str | Path, chapters_dir: str | Path | None = None) -> CuratorAgreement:
    """Load both files (clear errors naming the file and line) and compare them.

    Chapter texts come from ``chapters_dir``, else from beside file A when they are all there; without them the
    span overlap is left out (the word overlap is always computed).
    """
    a, b = load_benchmark(path_a), load_benchmark(path_b)
    numbers = sorted(set(a.chapters) | set(b.chapters))
    chapters: dict[int, str] | None = None
    if chapters_dir is not None:
        chapters = {n: c.text for n, c in load_chapters(chapters_dir, numbers).items()}
    else:
        try:
            chapters = {n: c.text for n, c in load_chapters(Path(path_a).parent, numbers).items()}
        except BenchlabError:
            chapters = None
    return curator_agreement(a, b, str(path_a), str(path_b), chapters)
