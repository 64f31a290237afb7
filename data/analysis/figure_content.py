"""What a comparison figure shows, decided once for the paper figure and the terminal (Results screen).

:func:`figure_content` turns a :class:`~benchlab.data.analysis.compare.Comparison` into panels of rows of bars
(no matplotlib here): :mod:`benchlab.data.analysis.plots` draws them for a journal and
:mod:`benchlab.data.analysis.figure_text` prints them in the terminal, so both show the same rows, counts,
intervals and notes. The rules a reviewer checks live here:

* every condition of the comparison is drawn, in panels of at most ``max_rows`` conditions (more panels, never a
  silent drop); anything left out is named in :attr:`FigureContent.notes`;
* an interval is carried for every bar; when none can be computed the bar says so (``interval is None``) and the
  figure draws it hatched, never as a bar without whisker that looks certain;
* the number of people and units is carried for every human bar;
* simulated pilots are never drawn among people: left out with a note, or in their own panels when asked;
* the title names only what is drawn ("humans vs models" only when there are models).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from benchlab.data.analysis.figure_labels import condition_label
from benchlab.data.analysis.stats.proportions import wilson_ci

if TYPE_CHECKING:
    from benchlab.data.analysis.compare import Comparison, Entry, TestRow

BarKind = Literal["humans", "model", "pilot"]
ModelItems = Literal["same", "all"]
#: test methods that compare without shared units (the model's side is then its score on all its units)
_UNPAIRED = ("unpaired", "two-proportion")


def _num(x: object) -> float | None:
    """A finite float, or None for a missing value (None or NaN: the pipeline may give either)."""
    if x is None:
        return None
    try:
        v = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def _attr(cell: object, *names: str) -> object:
    """A cell's field under its current or upcoming name (``value``/``estimate``, ``ci_low``/``lo``, ...): the
    figure must draw whatever the pipeline gives while its cell type is being reworked."""
    for name in names:
        if hasattr(cell, name):
            return getattr(cell, name)
    return None


@dataclass(frozen=True)
class Dot:
    """One participant's score over the pooled humans' bar."""

    who: str
    value: float
    flagged: bool = False


@dataclass(frozen=True)
class Bar:
    """One series (pooled humans, a model, a pilot) in one condition."""

    series: str  # legend / row name
    kind: BarKind
    value: float  # proportion in [0, 1]
    interval: tuple[float, float] | None  # 95% CI as proportions; None: none could be computed
    n_units: int
    n_people: int = 0  # people behind a human bar (0 for a model)
    method: str = ""
    dots: tuple[Dot, ...] = ()
    unit: str = "trials"  # what n_units counts (plural: "trials", "tuples")

    @property
    def n_text(self) -> str:
        """What is printed under a human bar: people and units (a model: its units)."""
        unit = self.unit.removesuffix("s") if self.n_units == 1 else self.unit
        if self.kind == "model":
            return f"n={self.n_units} {unit}"
        return f"n={self.n_people} {'person' if self.n_people == 1 else 'people'}, {self.n_units} {unit}"


@dataclass(frozen=True)
class Row:
    """One condition: its label and its bars (humans first, then models)."""

    code: str
    label: str
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class Panel:
    title: str
    rows: tuple[Row, ...]
    pilots: bool = False  # a panel of simulated pilots (never mixed with people)


@dataclass(frozen=True)
class RTCurve:
    """One participant's response times in one group (for an ECDF: every RT, so n is visible and normalised)."""

    who: str
    group: str
    seconds: tuple[float, ...]


@dataclass
class FigureContent:
    title: str
    score_name: str
    chance: float
    unit: str
    panels: list[Panel]
    series: list[str]  # in legend order (pooled humans, then models, then pilots)
    rts: list[RTCurve] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def conditions(self) -> list[str]:
        return [r.code for p in self.panels for r in p.rows]


def _bar(comp: Comparison, entry: Entry, kind: BarKind, condition: str,
         dots: tuple[Dot, ...] = ()) -> Bar | None:
    cell = comp.cell(entry.name, condition)
    if cell is None:
        return None
    value = _num(_attr(cell, "value", "estimate"))
    if value is None:
        return None
    lo, hi = _num(_attr(cell, "ci_low", "lo")), _num(_attr(cell, "ci_high", "hi"))
    interval = (lo, hi) if lo is not None and hi is not None else None
    n_units = int(_num(_attr(cell, "n_units", "n")) or 0)
    n_people = int(_num(_attr(cell, "n_participants", "n_people")) or 0)
    series = entry.label if kind == "pilot" else entry.name
    return Bar(series, kind, value, interval, n_units, n_people if kind != "model" else 0,
               str(_attr(cell, "method") or ""), dots, comp.unit)


def _paired(comp: Comparison) -> dict[tuple[str, str], TestRow]:
    """The pooled humans' test against each model per condition, where it paired them on shared units."""
    pooled = _pooled_name(comp)
    return {(t.condition, t.model): t for t in comp.tests
            if t.who == pooled and t.result.n > 0 and not t.result.method.startswith(_UNPAIRED)
            and not math.isnan(t.model_same_units)}


def _pooled_name(comp: Comparison) -> str:
    return next((e.name for e in comp.entries if e.kind == "humans"), "")


def _same_items_bar(bar: Bar, test: TestRow) -> Bar:
    """``bar`` (a model's, on all its units) as the model's score on the units the people answered (the paired
    test's units): Wilson 95% CI on that share."""
    n = int(test.result.n)
    value = float(test.model_same_units)
    lo, hi = wilson_ci(value * n, n)
    interval = (lo, hi) if lo == lo and hi == hi else None
    return Bar(bar.series, "model", value, interval, n, 0, f"Wilson (model on the people's {bar.unit})", (),
               bar.unit)


def _dots(comp: Comparison, people: Sequence[Entry], condition: str) -> tuple[Dot, ...]:
    out = []
    for p in people:
        cell = comp.cell(p.name, condition)
        v = _num(_attr(cell, "value", "estimate")) if cell is not None else None
        if v is not None:
            out.append(Dot(p.name, v, bool(p.flags)))
    return tuple(out)


def _chunks(rows: list[Row], size: int) -> list[list[Row]]:
    """At most ``size`` rows per chunk, as even as possible (no panel of one orphan row)."""
    parts = max(1, -(-len(rows) // size))
    even = -(-len(rows) // parts) if rows else size
    return [rows[i:i + even] for i in range(0, len(rows), even)] or [[]]


def _panels(rows_by_panel: dict[str, list[Row]], max_rows: int, pilots: bool) -> list[Panel]:
    out = []
    for title, rows in rows_by_panel.items():
        chunks = _chunks(rows, max_rows)
        for k, chunk in enumerate(chunks):
            suffix = f" (part {k + 1} of {len(chunks)})" if len(chunks) > 1 else ""
            name = title or ""
            if pilots:
                name = f"simulated pilots: {name}" if name else "simulated pilots (not people)"
            out.append(Panel(name + suffix, tuple(chunk), pilots))
    return out


def _title(comp: Comparison, n_people: int, has_humans: bool, models: int, pilots_drawn: bool) -> str:
    what = []
    if has_humans:
        what.append(f"{n_people} {'person' if n_people == 1 else 'people'}")
    if models:
        what.append(f"{models} {'model' if models == 1 else 'models'}")
    if pilots_drawn:
        what.append("simulated pilots")
    head = f"{comp.benchmark}: {comp.score_name}"
    if not what:
        return f"{head} (no data)"
    if has_humans and models:
        return f"{head}, {what[0]} vs {' and '.join(what[1:])} (95% CI)"
    return f"{head}, {' and '.join(what)} (95% CI)"


def figure_content(comp: Comparison, *, max_rows: int = 8, include_pilots: bool = False,
                   model_items: ModelItems = "same") -> FigureContent:
    """Panels, bars, counts, intervals and notes of ``comp`` (see the module docstring). ``model_items``: "same"
    draws each model on the units the pooled people answered in that condition (the units its test pairs), so bars
    side by side cover the same items; "all": each model on all its units. A comparison whose models were already
    scored on the people's units (``compare``'s default) is drawn as it is: "same" restricts nothing a second time,
    and "all" says that the figure cannot draw units the comparison left out."""
    humans = [e for e in comp.entries if e.kind == "humans"]
    models = comp.models
    people = comp.pooled_people
    pilots = [] if comp.pooled_simulated else comp.simulated
    notes: list[str] = []
    by_panel: dict[str, list[Row]] = {}
    pilot_panel: dict[str, list[Row]] = {}
    missing_ci: list[str] = []
    paired = _paired(comp) if model_items == "same" else {}
    all_units: list[str] = []
    for code in comp.conditions:
        lab = condition_label(code)
        bars = []
        for h in humans:
            bar = _bar(comp, h, "humans", code, _dots(comp, people, code))
            if bar is not None:
                bars.append(bar)
        for m in models:
            bar = _bar(comp, m, "model", code)
            if bar is not None and model_items == "same" and humans:
                test = paired.get((code, m.name))
                if test is None:
                    all_units.append(f"{m.name} in {lab.full}")
                elif not comp.models_same_items:
                    bar = _same_items_bar(bar, test)
            if bar is not None:
                bars.append(bar)
        missing_ci += [f"{b.series} in {lab.full}" for b in bars if b.interval is None]
        if bars:
            by_panel.setdefault(lab.panel, []).append(Row(code, lab.row, tuple(bars)))
        else:
            notes.append(f"{lab.full}: no data from people or models (only pilots, if any)")
        if include_pilots and pilots:
            pbars = [b for p in pilots if (b := _bar(comp, p, "pilot", code)) is not None]
            missing_ci += [f"{b.series} in {lab.full}" for b in pbars if b.interval is None]
            if pbars:
                pilot_panel.setdefault(lab.panel, []).append(Row(code, lab.row, tuple(pbars)))
    panels = _panels(by_panel, max_rows, False) + _panels(pilot_panel, max_rows, True) if pilot_panel else \
        _panels(by_panel, max_rows, False)
    if pilots and not include_pilots:
        notes.append("Left out: simulated pilots " + ", ".join(p.label for p in pilots)
                     + " (not people; --plot-pilots draws them in their own panel).")
    elif pilots:
        notes.append("Simulated pilots are drawn in their own panels, never among people.")
    if comp.pooled_simulated and comp.simulated:
        notes.append("Simulated pilots are POOLED with people here (--include-simulated).")
    if models and humans and model_items == "same":
        notes.append(f"Model bars: each model on the {comp.unit} the people answered in that condition (the units "
                     "its test pairs), so bars side by side cover the same items"
                     + (f"; on all its {comp.unit} where none is shared: " + "; ".join(all_units) if all_units
                        else "") + ".")
    if models and humans and model_items == "all" and comp.models_same_items:
        notes.append(f"Model bars: each model on the {comp.unit} the people answered, as the comparison scored them "
                     f"(compare with --all-items to draw every {comp.unit[:-1]} a model answered).")
    if missing_ci:
        notes.append("No 95% CI could be computed (hatched bar): " + "; ".join(missing_ci) + ".")
    flagged = [e.name for e in people if e.flags]
    if flagged:
        notes.append("Flagged by the attention criterion (open markers): " + ", ".join(flagged) + ".")
    methods = sorted({b.method for p in panels for r in p.rows for b in r.bars if b.method})
    if methods:
        notes.append("Intervals: " + "; ".join(methods) + ".")
    bins = [c for c in comp.conditions if " d" in c]
    if bins:
        notes.append("distance N words = the distance bin's upper edge (start to start; the bin holds distances "
                     "below N).")
    drawn_pilots = bool(pilot_panel)
    series = [h.name for h in humans] + [m.name for m in models] + ([p.label for p in pilots] if drawn_pilots
                                                                     else [])
    # everyone drawn: people spread over configurations are in different cells, so the largest cell undercounts
    # (3 people, at most 2 per configuration, read "2 people")
    human_bars = [b for p in panels if not p.pilots for r in p.rows for b in r.bars if b.kind == "humans"]
    drawn = {d.who for b in human_bars for d in b.dots}
    n_people = max(len(drawn), max((b.n_people for b in human_bars), default=0))
    title = _title(comp, n_people, any(b.kind == "humans" for p in panels for r in p.rows for b in r.bars),
                   len(models), drawn_pilots)
    return FigureContent(title, comp.score_name, comp.chance, comp.unit, panels, series,
                         _rt_curves(comp, {p.name for p in people} | ({p.name for p in pilots} if drawn_pilots
                                                                      else set())), notes)


def _rt_curves(comp: Comparison, who: set[str]) -> list[RTCurve]:
    """Per participant and group when the pipeline keeps RTs by group (conditions apart), else per participant."""
    by_group = comp.rts_by_group
    out: list[RTCurve] = []
    if by_group:
        for name, groups in by_group.items():
            if name in who:
                out += [RTCurve(name, g, tuple(sorted(r / 1000 for r in rts))) for g, rts in groups.items() if rts]
        return out
    return [RTCurve(name, "", tuple(sorted(r / 1000 for r in rts))) for name, rts in comp.rts_ms.items()
            if name in who and rts]
