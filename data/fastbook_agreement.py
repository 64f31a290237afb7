"""Agreement between two curators' edited copies of the fastbook benchmark.

Components are matched by ``(chapter, question_number, component index)``, the only stable key (the reference
scoring pairs by list position, so a reordered file must not silently shift everything). Per component we report
whether the context passages are identical and how much they overlap: the passages are copied from the same
chapter, so the overlap is measured on the word sequences (matched words from ``difflib`` on the concatenated
passages): precision/recall of B against A and their F1 (Dice). The two flags curators set
(``explicit_context``, ``extraneous_answer``) get percent agreement and Cohen's kappa over matched components.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchlab.data import stats
from benchlab.data.fastbook.benchmark import Benchmark, Component, QuestionId, load_benchmark
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
        exp_pa, exp_k = self.flag_agreement("explicit")
        ext_pa, ext_k = self.flag_agreement("extraneous")
        rows = [
            ("components compared", f"{n}"),
            ("identical contexts", f"{ident} ({_pct(ident, n)})"),
            ("same passages, other order", f"{reordered}"),
            ("contexts differ", f"{n - ident} ({_pct(n - ident, n)})"),
            ("context word overlap F1, mean over components", _num(mean_f1)),
            ("context word overlap F1, pooled words", _num(pooled_f1)),
            ("explicit_context: agreement / Cohen's kappa", f"{_num(exp_pa)} / {_num(exp_k)}"),
            ("extraneous_answer: agreement / Cohen's kappa", f"{_num(ext_pa)} / {_num(ext_k)}"),
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
                "precision (B vs A)": _num(c.precision), "recall (B vs A)": _num(c.recall),
                "explicit A/B": f"{c.explicit_a}/{c.explicit_b}",
                "extraneous A/B": f"{c.extraneous_a}/{c.extraneous_b}",
            })
        cols = ["chapter", "question", "component", "differs", "contexts A", "contexts B", "words A", "words B",
                "overlap F1", "precision (B vs A)", "recall (B vs A)", "explicit A/B", "extraneous A/B"]
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


def _words(contexts: tuple[str, ...]) -> list[str]:
    return [w for text in contexts for w in text.split()]


def compare_components(qid: QuestionId, index: int, a: Component, b: Component) -> ComponentDiff:
    ca, cb = tuple(a.context), tuple(b.context)
    wa, wb = _words(ca), _words(cb)
    if ca == cb:
        matched = len(wa)
    else:
        matcher = difflib.SequenceMatcher(a=wa, b=wb, autojunk=False)
        matched = sum(block.size for block in matcher.get_matching_blocks())
    return ComponentDiff(qid, index, ca, cb, a.explicit_context, b.explicit_context, a.extraneous_answer,
                         b.extraneous_answer, len(wa), len(wb), matched)


def curator_agreement(a: Benchmark, b: Benchmark, name_a: str = "A", name_b: str = "B") -> CuratorAgreement:
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
        for i in range(max(len(qa.answer_context), len(qb.answer_context))):
            if i >= len(qb.answer_context):
                only_a.append(f"{qa.id} component {i}")
            elif i >= len(qa.answer_context):
                only_b.append(f"{qa.id} component {i}")
            else:
                comps.append(compare_components(qa.id, i, qa.answer_context[i], qb.answer_context[i]))
    only_b.extend(str(q.id) for q in b.questions if q.id not in ids_a)
    return CuratorAgreement(name_a, name_b, comps, only_a, only_b)


def compare_files(path_a: str | Path, path_b: str | Path) -> CuratorAgreement:
    """Load both files (clear errors naming the file and line) and compare them."""
    return curator_agreement(load_benchmark(path_a), load_benchmark(path_b), str(path_a), str(path_b))
