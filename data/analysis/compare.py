"""The benchmark-independent part of a humans-vs-models comparison: the result object and its tables.

:func:`benchlab.data.analysis.pipeline.run_comparison` fills a :class:`Comparison` for every benchmark (each
benchmark's adapter, ``benchlab.data.<benchmark>.compare``, only declares and reads): one
:class:`~benchlab.data.analysis.stats.FigureCell` per (row, condition) for every participant, the pooled humans
and every model; the human-model tests; per-participant spread and attention flags; response times; agreement.
The CLI, the plots and the Results screen all read this one object, so they always agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import pandas as pd

from benchlab.data.analysis.family import EXPLORATORY, PRIMARY, Correction, adjust, describe
from benchlab.data.analysis.stats import FigureCell, TestResult, format_p, stars
from benchlab.data.tables import Table

if TYPE_CHECKING:  # field types only: agreement and RT statistics load when a comparison computes them
    from benchlab.data.analysis.stats import Agreement, RTBin, RTSummary, Spread

Kind = Literal["participant", "humans", "model"]
POOLED = "humans (pooled)"


@dataclass(frozen=True)
class Entry:
    """One row of the comparison: a participant, the pooled humans, or a model."""

    name: str
    kind: Kind
    flags: tuple[str, ...] = ()  # attention-criterion failures (participants only)
    simulated: str = ""  # the simulation strategy (e.g. "oracle") of a simulated participant; "" for a person
    partial: str = ""  # "k of K cells" when the row lacks cells the models have (its overall is put aside)

    @property
    def label(self) -> str:
        marked = not self.simulated or self.name.endswith(f"(simulated {self.simulated})")
        name = self.name if marked else f"{self.name} (simulated {self.simulated})"
        name = f"{name} [flagged]" if self.flags else name
        return f"{name} [partial]" if self.partial else name


@dataclass(frozen=True)
class TestRow:
    """Pooled humans (or one participant, ``who``) against one model in one condition."""

    condition: str
    model: str
    humans: float  # the human score on the units used by the test
    model_same_units: float  # the model's score on the same units (paired) or on all its units (unpaired)
    result: TestResult
    who: str = POOLED
    people: int = 0  # participants behind the human side (1 for one participant)
    family: str = EXPLORATORY  # "primary" (the declared contrast, corrected together) or "exploratory"
    p_adjusted: float = math.nan  # the p after the family's correction (primary tests only)


@dataclass
class Comparison:
    benchmark: str
    unit: str  # what the n counts: "tuples", "trials"
    conditions: list[str]
    entries: list[Entry]
    cells: dict[tuple[str, str], FigureCell]
    tests: list[TestRow] = field(default_factory=list)
    spread: dict[str, Spread] = field(default_factory=dict)
    rt: list[tuple[str, str, RTSummary]] = field(default_factory=list)  # (participant, condition, summary)
    rt_quantiles: dict[str, list[RTBin]] = field(default_factory=dict)
    rts_ms: dict[str, list[float]] = field(default_factory=dict)  # raw RTs per participant, for histograms
    #: raw RTs per participant and group (problem, configuration), so figures never pool conditions
    rts_by_group: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    agreement: dict[str, Agreement] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    score_name: str = "accuracy"
    chance: float = 0.5
    #: whether simulated participants were pooled with people (``--include-simulated``)
    pooled_simulated: bool = False
    #: benchmark-specific tables after the accuracy table: section name -> (formatted, numeric) table
    extra_tables: dict[str, tuple[Table, Table]] = field(default_factory=dict)
    #: the conditions of the primary contrast (pooled humans vs each model there form the corrected family)
    primary: list[str] = field(default_factory=list)
    correction: Correction = "holm"
    #: whether each model was already scored on the people's units only (``compare``'s default, issue 20): the
    #: figure then draws the model cells as they are instead of restricting them a second time
    models_same_items: bool = False

    # -- the family of tests -------------------------------------------------------------------------------
    def with_correction(self, correction: Correction) -> Comparison:
        """This comparison with the primary family's p-values adjusted by ``correction`` (the tests re-labelled)."""
        self.correction = correction
        in_family = [i for i, t in enumerate(self.tests) if t.who == POOLED and t.condition in self.primary]
        adjusted = adjust([self.tests[i].result.p_value for i in in_family], correction)
        tests = [replace(t, family=EXPLORATORY, p_adjusted=math.nan) for t in self.tests]
        for i, p in zip(in_family, adjusted, strict=True):
            tests[i] = replace(tests[i], family=PRIMARY, p_adjusted=p)
        self.tests = tests
        return self

    @property
    def family_size(self) -> int:
        return sum(t.family == PRIMARY for t in self.tests)

    # -- lookups --------------------------------------------------------------------------------------------
    def cell(self, entry: str, condition: str) -> FigureCell | None:
        return self.cells.get((entry, condition))

    @property
    def participants(self) -> list[Entry]:
        return [e for e in self.entries if e.kind == "participant"]

    @property
    def models(self) -> list[Entry]:
        return [e for e in self.entries if e.kind == "model"]

    @property
    def simulated(self) -> list[Entry]:
        return [e for e in self.participants if e.simulated]

    @property
    def pooled_people(self) -> list[Entry]:
        """Participants who may be in the pooled humans (flag exclusion aside): real people, or all if asked."""
        return [e for e in self.participants if self.pooled_simulated or not e.simulated]

    @property
    def flagged(self) -> list[Entry]:
        return [e for e in self.participants if e.flags]

    # -- tables ---------------------------------------------------------------------------------------------
    def accuracy_table(self) -> Table:
        data = {c: [self._cell_text(e.name, c) for e in self.entries] for c in self.conditions}
        frame = pd.DataFrame(data, index=pd.Index([e.label for e in self.entries], name="who"))
        return Table(f"{self.benchmark}: {self.score_name} (%) [95% CI]", frame)

    def counts_table(self) -> Table:
        data = {c: [self._count_text(e.name, c) for e in self.entries] for c in self.conditions}
        frame = pd.DataFrame(data, index=pd.Index([e.label for e in self.entries], name="who"))
        return Table(f"{self.benchmark}: participants / {self.unit} behind each figure", frame)

    def long_table(self) -> Table:
        """One numeric row per (row, condition): the form to load into R or pandas."""
        rows = []
        for e in self.entries:
            for c in self.conditions:
                cell = self.cell(e.name, c)
                if cell is None:
                    continue
                rows.append({"who": e.name, "kind": e.kind, "condition": c, self.score_name: _r(cell.value),
                             "ci_low": _r(cell.ci_low), "ci_high": _r(cell.ci_high),
                             "participants": cell.n_participants,
                             self.unit: cell.n_units, "ci_method": cell.method, "flagged": "; ".join(e.flags),
                             "simulated": e.simulated,
                             **{k: _r(v) if isinstance(v, float) else v for k, v in cell.extra.items()}})
        frame = pd.DataFrame(rows).set_index(["who", "condition"]) if rows else pd.DataFrame()
        return Table(f"{self.benchmark}: {self.score_name} per row and condition (proportions)", frame)

    def tests_table(self, numeric: bool = False) -> Table:
        rows = []
        labels = {e.name: e.label for e in self.entries}
        for t in self.tests:
            r = t.result
            if numeric:
                rows.append({"condition": t.condition, "humans_row": t.who, "model": t.model,
                             "humans": _r(t.humans),
                             "model_same_units": _r(t.model_same_units), "difference": _r(r.estimate),
                             "ci_low": _r(r.ci_low), "ci_high": _r(r.ci_high), "p": _r(r.p_value, 6),
                             "n": r.n, "people": t.people, "method": r.method, "note": r.note,
                             "family": t.family, "p_adjusted": _r(t.p_adjusted, 6),
                             "correction": self.correction if t.family == PRIMARY else ""})
            else:
                rows.append({"condition": t.condition, "humans_row": labels.get(t.who, t.who), "model": t.model,
                             "humans": _pct(t.humans),
                             "model (same units)": _pct(t.model_same_units),
                             "difference [95% CI]": _diff_text(r), "p": format_p(r.p_value),
                             f"p ({self.correction})": (format_p(t.p_adjusted) + stars(t.p_adjusted)
                                                        if t.family == PRIMARY else "exploratory"),
                             "n people": t.people, f"n {self.unit}": r.n, "test": r.method})
        frame = pd.DataFrame(rows)
        if not frame.empty:
            per_person = any(t.who != POOLED for t in self.tests)
            if not per_person:
                frame = frame.drop(columns=["humans_row"])
            frame = frame.set_index(["condition", "humans_row", "model"] if per_person else ["condition", "model"])
            if per_person:
                frame.index = frame.index.set_names(["condition", "who", "model"])
        return Table(f"{self.benchmark}: humans minus model (points), two-sided tests; primary contrast: pooled humans "
                     f"vs each model on {', '.join(self.primary) or 'n/a'} ({self.correction}), others exploratory",
                     frame,
                     empty_text=self.no_tests_reason())

    def no_tests_reason(self) -> str:
        if not any(e.kind == "humans" for e in self.entries):
            return ("(no tests: no pooled humans" + (", simulated participants are not pooled without "
                                                     "--include-simulated)" if self.simulated else ")"))
        if not self.models:
            return "(no tests: no model results)"
        both = [c for c in self.conditions
                if (POOLED, c) in self.cells and any((m.name, c) in self.cells for m in self.models)]
        if not both:
            return "(no tests: no model data in the humans' conditions)"
        return f"(no tests: humans and models share no {self.unit} and too few for an unpaired test)"

    def spread_table(self) -> Table:
        rows = []
        for c in self.conditions:
            sp = self.spread.get(c)
            if sp is None:
                continue
            rows.append({"condition": c, "participants": sp.n, "min": _pct(sp.min), "median": _pct(sp.median),
                         "max": _pct(sp.max)})
        frame = pd.DataFrame(rows)
        if not frame.empty:
            frame = frame.set_index("condition")
        return Table(f"{self.benchmark}: per-participant spread of {self.score_name} (%)", frame)

    def flags_table(self) -> Table:
        rows = [{"participant": e.name, "reasons": "; ".join(e.flags)} for e in self.flagged]
        frame = pd.DataFrame(rows, columns=["participant", "reasons"]).set_index("participant")
        return Table(f"{self.benchmark}: participants flagged by the attention criterion", frame)

    def rt_table(self) -> Table:
        rows = [{"participant": p, "condition": c, "n": s.n, "median ms": _ms(s.median), "Q1 ms": _ms(s.q1),
                 "Q3 ms": _ms(s.q3), "IQR ms": _ms(s.iqr)} for p, c, s in self.rt]
        frame = pd.DataFrame(rows)
        if not frame.empty:
            frame = frame.set_index(["participant", "condition"])
        return Table(f"{self.benchmark}: response times per participant and condition", frame)

    def rt_quantile_table(self) -> Table:
        rows = []
        for p, bins in self.rt_quantiles.items():
            for b in bins:
                lo, hi = b.ci
                rows.append({"participant": p, "RT quantile": f"Q{b.quantile}",
                             "RT range ms": f"{_ms(b.lo_ms)}-{_ms(b.hi_ms)}", "trials": b.n,
                             "item accuracy % [95% CI]": f"{_pct(b.accuracy)} [{_pct(lo)}, {_pct(hi)}]"})
        frame = pd.DataFrame(rows)
        if not frame.empty:
            frame = frame.set_index(["participant", "RT quantile"])
        return Table(f"{self.benchmark}: item accuracy by response-time quantile (Wilson CI)", frame)

    def agreement_table(self) -> Table:
        rows = [{"condition": c, "items (>=2 people)": a.items, "max raters": a.raters,
                 "percent agreement": _pct(a.percent), "unanimous": _pct(a.unanimous),
                 "Fleiss' kappa": (f"n/a ({a.note})" if a.note else "n/a") if a.kappa != a.kappa
                 else f"{a.kappa:.3f}"}
                for c, a in self.agreement.items()]
        frame = pd.DataFrame(rows)
        if not frame.empty:
            frame = frame.set_index("condition")
        return Table(f"{self.benchmark}: agreement between people on the same items", frame)

    def methods_table(self) -> Table:
        notes = [*self.notes, *([describe(self.correction, self.family_size)] if self.tests else [])]
        frame = pd.DataFrame({"note": notes}, index=pd.RangeIndex(1, len(notes) + 1, name="#"))
        return Table(f"{self.benchmark}: methods", frame)

    def tables(self, numeric: bool = False, sections: tuple[str, ...] | None = None) -> list[Table]:
        """All tables; ``numeric`` (csv/json) gives long numeric forms instead of formatted cells."""
        builders: dict[str, object] = {
            "accuracy": (lambda: self.long_table()) if numeric else self.accuracy_table,
            **{name: (lambda pair=pair: pair[1] if numeric else pair[0]) for name, pair in self.extra_tables.items()},
            "counts": None if numeric else self.counts_table,
            "tests": lambda: self.tests_table(numeric),
            "spread": self.spread_table,
            "flags": self.flags_table if self.flagged else None,
            "rt": self.rt_table if self.rt else None,
            "rt-quantiles": self.rt_quantile_table if self.rt_quantiles else None,
            "agreement": self.agreement_table if self.agreement else None,
            "methods": self.methods_table,
        }
        out = []
        for name, build in builders.items():
            if build is None or (sections is not None and name not in sections):
                continue
            assert callable(build)
            out.append(build())
        return out

    # -- formatting helpers ---------------------------------------------------------------------------------
    def _cell_text(self, entry: str, condition: str) -> str:
        cell = self.cell(entry, condition)
        if cell is not None and cell.extra.get("partial"):
            return f"partial ({cell.extra['partial']})"  # its value is in the methods notes and the export
        return "" if cell is None else cell.text()

    def _count_text(self, entry: str, condition: str) -> str:
        cell = self.cell(entry, condition)
        if cell is None:
            return ""
        if any(e.name == entry and e.kind == "model" for e in self.entries):
            return f"{cell.n_units}"
        return f"{cell.n_participants} / {cell.n_units}"


def simulated_note(simulated: dict[str, str], included: bool) -> str:
    """The methods line saying who was simulated and whether they were pooled."""
    sims = [f"{p} ({s})" for p, s in simulated.items() if s]
    if not sims:
        return "Simulated participants: none."
    if included:
        return (f"Simulated participants: {', '.join(sims)}; INCLUDED in the pooled humans, spread and agreement "
                "(--include-simulated).")
    return (f"Simulated participants: {', '.join(sims)}; shown on their own rows, left out of the pooled humans, "
            "spread and agreement (--include-simulated pools them).")


def _r(x: float, digits: int = 6) -> float | None:
    return None if x != x else round(float(x), digits)


def _pct(x: float) -> str:
    return "n/a" if x != x else f"{100 * x:.1f}"


def _ms(x: float) -> str:
    return "n/a" if x != x else f"{x:.0f}"


def _diff_text(r: TestResult) -> str:
    if r.estimate != r.estimate:
        return "n/a"
    if math.isnan(r.ci_low):
        return f"{100 * r.estimate:+.1f} [CI n/a]"  # too few differing units for an interval (see the note)
    return f"{100 * r.estimate:+.1f} [{100 * r.ci_low:+.1f}, {100 * r.ci_high:+.1f}]"
