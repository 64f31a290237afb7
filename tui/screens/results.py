"""Results: humans next to models while a lab session is running (experimenter only, never in participant mode).

Pick a benchmark and a results folder; the screen shows the comparison tables with 95% CIs, a bar chart of
accuracy per problem/condition with CI whiskers (pooled humans next to each model), response-time histograms,
and agreement/spread. With live refresh on, the results files are polled (size + mtime) every second and the
comparison is recomputed in a worker thread when a participant's answer lands on disk.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import (
    Button,
    DataTable,
    Footer,
    Input,
    Label,
    LoadingIndicator,
    Select,
    Static,
    Switch,
    TabbedContent,
    TabPane,
)
from textual_plotext import PlotextPlot

from benchlab.annotations.models.listing import COLUMNS as RUN_COLUMNS
from benchlab.annotations.models.listing import run_rows
from benchlab.annotations.task import ComparisonSource, Task
from benchlab.data.analysis.compare import POOLED, Comparison
from benchlab.data.analysis.figure_colours import rgb, series_colours
from benchlab.data.analysis.figure_content import FigureContent, figure_content
from benchlab.data.analysis.figure_labels import condition_label
from benchlab.data.analysis.figure_text import figure_lines
from benchlab.data.analysis.plots import save_comparison_plot
from benchlab.data.analysis.stats import AttentionCriterion
from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.models.run_folder import MODELS_FOLDER
from benchlab.data.tables import Table, counted, csv_files, render
from benchlab.tui.session_handover import tasks


def comparable_tasks() -> dict[str, Task]:
    """The benchmarks the picker offers: every registered task with a comparison, in launcher order."""
    return {task.name: task for task in tasks() if task.comparison is not None}


def fill_table(widget: DataTable[str], table: Table) -> None:
    """Show a :class:`Table` (index columns first) in a DataTable, keeping the cursor row if possible."""
    row = widget.cursor_row
    widget.clear(columns=True)
    frame = table.frame
    names = [str(n) if n is not None else "" for n in frame.index.names]
    widget.add_columns(*names, *[str(c) for c in frame.columns])
    for idx, values in frame.iterrows():
        keys = list(idx) if isinstance(idx, tuple) else [idx]
        cells = ["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in values.tolist()]
        widget.add_row(*[str(k) for k in keys], *cells)
    if widget.row_count:
        widget.move_cursor(row=min(row, widget.row_count - 1))


def export_comparison(comp: Comparison, folder: Path) -> Path:
    """``tables.md``, one numeric CSV per table in ``tables/`` and ``figure.png`` (when matplotlib is installed) in
    ``folder``."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchlabError(f"cannot create the export folder ({exc.strerror or exc})", folder) from exc
    atomic_write_text(folder / "tables.md", render(comp.tables(), "markdown"))
    csv_folder = folder / "tables"
    csv_folder.mkdir(exist_ok=True)
    for name, text in csv_files(comp.tables(numeric=True)).items():
        atomic_write_text(csv_folder / name, text)
    with contextlib.suppress(BenchlabError):  # no matplotlib: the tables are still written
        save_comparison_plot(comp, folder / "figure.png")
    return folder


def file_signature(paths: list[Path]) -> tuple[tuple[str, int, int], ...]:
    """(path, size, mtime_ns) of every watched file: changes when a participant's answer is appended."""
    sig = []
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            continue
        sig.append((str(p), st.st_size, st.st_mtime_ns))
    return tuple(sig)


class ResultsScreen(Screen[None]):
    """Comparison tables, charts and response times for one benchmark's results folder."""

    CSS_PATH = "results.tcss"
    BINDINGS = [
        Binding("escape", "close", "Back"),
        Binding("ctrl+r", "reload", "Reload"),
        Binding("ctrl+l", "toggle_live", "Live refresh"),
        Binding("ctrl+s", "export", "Export"),
    ]
    POLL_SECONDS = 1.0

    def __init__(self, benchmark: str = "", testset: str | Path | None = None,
                 results: str | Path | None = None, *, live: bool = True,
                 criterion: AttentionCriterion | None = None, now: Callable[[], str] | None = None) -> None:
        """``benchmark``: the task shown first (default: the first with a comparison, in launcher order); ``now``
        gives the "updated at" stamp (injected by tests for stable snapshots)."""
        super().__init__()
        self.now = now or (lambda: time.strftime("%H:%M:%S"))
        self.tasks = comparable_tasks()
        self.benchmark = benchmark if benchmark in self.tasks else next(iter(self.tasks), benchmark)
        self.initial_testset = str(testset or "")
        self.initial_results = str(results or "")
        self.initial_live = live
        self.criterion = criterion or AttentionCriterion()
        self.comparison: Comparison | None = None
        self.figure: FigureContent | None = None  # what the Chart tab shows (the paper figure's content)
        self._signature: tuple[tuple[str, int, int], ...] | None = None
        self._loading = False
        self.loads = 0  # completed loads, for tests and the status line

    def compose(self) -> ComposeResult:
        yield Static("Results: humans vs models", id="title")
        with Horizontal(id="pickers"):
            yield Select([(t.title, t.name) for t in self.tasks.values()], value=self.benchmark, allow_blank=False,
                         id="benchmark")
            testset = Input(self.initial_testset, placeholder="test-set folder (trials.jsonl.bz2)", id="testset")
            testset.border_title = "Test set"  # labelled: once filled in, the placeholder no longer says which is which
            yield testset
            results = Input(self.initial_results, placeholder="results folder", id="results")
            results.border_title = "Results folder"
            yield results
            yield Button("Load", id="load", variant="primary")
            yield Label("live", id="live-label")
            yield Switch(self.initial_live, id="live")
        with Horizontal(id="status-row"):
            yield Static("Pick a benchmark and a results folder, then Load.", id="status", markup=False)
            yield LoadingIndicator(id="busy")  # a comparison takes seconds: show that something is happening
        with TabbedContent(id="tabs"):
            with TabPane("Tables", id="tab-tables"), VerticalScroll():
                yield Static("", classes="caption", id="cap-accuracy", markup=False)
                yield DataTable(id="accuracy", zebra_stripes=True, cursor_type="row")
                yield Static("", classes="caption", id="cap-bias", markup=False)
                yield DataTable(id="bias", zebra_stripes=True, cursor_type="row")
                yield Static("", classes="caption", id="cap-tests", markup=False)
                yield DataTable(id="tests", zebra_stripes=True, cursor_type="row")
                yield Static("", classes="caption", id="cap-counts", markup=False)
                yield DataTable(id="counts", zebra_stripes=True, cursor_type="row")
                # model runs beside the results (benchlab models run|import), shown only when there are some
                yield Static("", classes="caption", id="cap-model-runs", markup=False)
                yield DataTable(id="model-runs", zebra_stripes=True, cursor_type="row")
            with TabPane("Chart", id="tab-chart"), VerticalScroll(id="chart-scroll"):
                yield PlotextPlot(id="bars")
                yield Static("", id="figure-text", markup=False)
            with TabPane("Response times", id="tab-rt"):
                yield PlotextPlot(id="rt-hist")
                with Horizontal(id="rt-tables"):
                    yield DataTable(id="rt", zebra_stripes=True, cursor_type="row")
                    yield DataTable(id="rt-quantiles", zebra_stripes=True, cursor_type="row")
            with TabPane("People", id="tab-people"), VerticalScroll():
                with Horizontal(id="criterion"):
                    yield Label("Attention: min control accuracy (0-1)")
                    yield Input(self._crit_text(self.criterion.min_control_accuracy), id="min-control",
                                placeholder="off", restrict=r"[0-9.]*")
                    yield Label("too fast below (ms)")
                    yield Input(self._crit_text(self.criterion.fast_ms), id="fast-ms", placeholder="off",
                                restrict=r"[0-9.]*")
                    yield Label("max share too fast")
                    yield Input(self._crit_text(self.criterion.max_fast_share), id="fast-share", restrict=r"[0-9.]*")
                yield Static("", classes="caption", id="cap-spread", markup=False)
                yield DataTable(id="spread", zebra_stripes=True, cursor_type="row")
                yield Static("", classes="caption", id="cap-agreement", markup=False)
                yield DataTable(id="agreement", zebra_stripes=True, cursor_type="row")
                yield Static("", id="flags", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#busy").display = False
        for selector in ("#model-runs", "#cap-model-runs"):
            self.query_one(selector).display = False
        self._sync_testset_field()
        self.set_interval(self.POLL_SECONDS, self._poll, name="results-poll")
        if Path(self.query_one("#results", Input).value).expanduser().exists():
            self.action_reload()

    # -- inputs ---------------------------------------------------------------------------------------------
    @property
    def selected_task(self) -> Task:
        return self.tasks[self.benchmark]

    @property
    def source(self) -> ComparisonSource:
        source = self.selected_task.comparison
        assert source is not None  # only tasks with a comparison are listed
        return source

    def _sync_testset_field(self) -> None:
        field = self.query_one("#testset", Input)
        field.display = self.source.testset_label is not None
        field.placeholder = self.source.testset_label or ""
        self._prefill()

    def _prefill(self) -> None:
        """Empty fields get the task's default data set and output folder (where sessions write)."""
        task = self.selected_task
        testset, results = self.query_one("#testset", Input), self.query_one("#results", Input)
        dataset = testset.value or str(task.default_dataset())
        if self.source.testset_label is not None and not testset.value:
            testset.value = dataset
        if not results.value:
            results.value = str(task.default_out(dataset) / "results")

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "benchmark" and isinstance(event.value, str) and event.value != self.benchmark:
            self.benchmark = event.value
            self.query_one("#testset", Input).value = ""
            self.query_one("#results", Input).value = ""
            self._sync_testset_field()
            self._signature = None

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "load":
            self.action_reload()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id in ("min-control", "fast-ms", "fast-share"):
            try:
                share = self._crit_value("#fast-share", 1.0)
                self.criterion = AttentionCriterion(
                    min_control_accuracy=self._crit_value("#min-control", 1.0),
                    fast_ms=self._crit_value("#fast-ms", None),
                    max_fast_share=0.1 if share is None else share,
                )
            except ValueError as exc:
                self._status(f"error: {exc}", error=True)
                return
        self.action_reload()

    @staticmethod
    def _crit_text(value: float | None) -> str:
        return "" if value is None else f"{value:g}"

    def _crit_value(self, selector: str, upper: float | None) -> float | None:
        field = self.query_one(selector, Input)
        text = field.value.strip()
        if not text:
            return None
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        if upper is not None and not 0 <= value <= upper:
            raise ValueError(f"{text!r} must be between 0 and {upper:g}")
        return value

    def _paths(self) -> tuple[Path | None, Path]:
        testset = self.query_one("#testset", Input).value.strip()
        results = self.query_one("#results", Input).value.strip()
        if not results:
            raise BenchlabError("enter a results folder")
        return (Path(testset).expanduser() if testset and self.source.testset_label else None,
                Path(results).expanduser())

    # -- loading --------------------------------------------------------------------------------------------
    def action_reload(self) -> None:
        try:
            testset, results = self._paths()
        except BenchlabError as exc:
            self._status(f"error: {exc}", error=True)
            return
        self._busy(True)
        self._status(f"loading {results} ...")
        self._load(self.source, testset, results)

    @work(thread=True, exclusive=True, group="results-load")
    def _load(self, source: ComparisonSource, testset: Path | None, results: Path) -> None:
        signature: tuple[tuple[str, int, int], ...] = ()
        try:
            if not results.exists():
                raise BenchlabError("no such results folder (it is polled: results show up when files appear)",
                                    results)
            signature = file_signature(source.watched(testset, results))
            comp = source.build(testset, results, self.criterion)
        except BenchlabError as exc:
            self.app.call_from_thread(self._failed, str(exc), signature)
            return
        except Exception as exc:  # a bug must not take the experimenter's app down mid-session
            self.app.call_from_thread(self._failed, f"internal error: {type(exc).__name__}: {exc}", signature)
            return
        self.app.call_from_thread(self._show, comp, signature)

    def _failed(self, message: str, signature: tuple[tuple[str, int, int], ...]) -> None:
        """Show the error; keep polling, so a folder that fills up later (or a fixed file) is picked up."""
        self._busy(False)
        self._signature = signature
        self._status(f"error: {message}", error=True)

    def _show(self, comp: Comparison, signature: tuple[tuple[str, int, int], ...]) -> None:
        self._busy(False)
        self._signature = signature
        self.comparison = comp
        self.loads += 1
        for key, table in (("accuracy", comp.accuracy_table()), ("tests", comp.tests_table()),
                           ("counts", comp.counts_table()), ("spread", comp.spread_table()),
                           ("agreement", comp.agreement_table()), ("rt", comp.rt_table()),
                           ("rt-quantiles", comp.rt_quantile_table())):
            fill_table(self.query_one(f"#{key}", DataTable), table)
            caps = self.query(f"#cap-{key}")
            if caps:
                caps.first(Static).update(table.title)
        bias = comp.extra_tables.get("bias")
        for selector in ("#bias", "#cap-bias"):
            self.query_one(selector).display = bias is not None
        if bias is not None:
            fill_table(self.query_one("#bias", DataTable), bias[0])
            self.query_one("#cap-bias", Static).update(bias[0].title)
        flags = comp.flagged
        self.query_one("#flags", Static).update(
            "Flagged: " + "; ".join(f"{e.name} ({', '.join(e.flags)})" for e in flags) if flags
            else f"No participant flagged (criterion: {self.criterion.describe()})."
        )
        self._draw_bars(comp)
        self._draw_rt(comp)
        self._show_model_runs()
        pooled = comp.cell(POOLED, comp.conditions[0]) if comp.conditions else None
        self._status(
            f"{counted(len(comp.participants) - len(comp.simulated), 'participant')} ({len(flags)} flagged)"
            + (f", {len(comp.simulated)} simulated (not pooled)" if comp.simulated else "")
            + f", {counted(len(comp.models), 'model')}, "
            f"{pooled.n_units if pooled else 0} distinct {comp.unit} answered by people; updated {self.now()}"
            + (" (live)" if self.query_one("#live", Switch).value else "")
        )

    def _show_model_runs(self) -> None:
        """The model runs and imports beside the results folder, with their provenance (hidden when none)."""
        _testset, results = self._paths()
        try:
            rows = [*run_rows(results.parent / MODELS_FOLDER, self.benchmark or None),
                    *run_rows(results / MODELS_FOLDER, self.benchmark or None)]
        except BenchlabError:
            rows = []
        for selector in ("#model-runs", "#cap-model-runs"):
            self.query_one(selector).display = bool(rows)
        if rows:
            frame = pd.DataFrame(rows, columns=list(RUN_COLUMNS))
            fill_table(self.query_one("#model-runs", DataTable),
                       Table("Model runs (benchlab models): provenance", frame.set_index("model")))
            self.query_one("#cap-model-runs", Static).update("Model runs (benchlab models): model, prompt template, "
                                                              "date, items")

    def _busy(self, loading: bool) -> None:
        """A comparison is being computed (the spinner shows) or not."""
        self._loading = loading
        self.query_one("#busy", LoadingIndicator).display = loading

    def _status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#status", Static)
        status.update(text)
        status.set_class(error, "error")

    # -- charts ---------------------------------------------------------------------------------------------
    def _draw_bars(self, comp: Comparison) -> None:
        """The paper figure's content (:func:`figure_content`): every condition's bars with CI whiskers (a bar
        without interval drawn unfilled), numbered; the text below names each number and gives n and the notes."""
        content = figure_content(comp)
        self.figure = content
        widget = self.query_one("#bars", PlotextPlot)
        plt = widget.plt
        plt.clear_figure()
        rows = [r for p in content.panels if not p.pilots for r in p.rows]
        series = list(dict.fromkeys(b.series for r in rows for b in r.bars))
        width = 0.8 / max(1, len(series))
        # a colour of its own per series (plotext's own cycle drew two models alike), the paper figure's colours
        humans = [b.series for r in rows for b in r.bars if b.kind == "humans"]
        colours = {name: rgb(c) for name, c in series_colours(series, humans).items()}
        ink = "white" if self.app.current_theme.dark else "black"
        for i, name in enumerate(series):
            filled: list[tuple[float, float]] = []
            hollow: list[tuple[float, float]] = []
            for j, row in enumerate(rows):
                bar = next((b for b in row.bars if b.series == name), None)
                if bar is None:
                    continue
                x = j + 1 - 0.4 + width * (i + 0.5)
                if bar.interval is None:
                    hollow.append((x, 100 * bar.value))
                    continue
                filled.append((x, 100 * bar.value))
                lo, hi = bar.interval
                if hi > lo:
                    plt.plot([x, x], [100 * lo, 100 * hi], marker="│", color=ink)
            if filled:
                plt.bar([x for x, _ in filled], [y for _, y in filled], width=width * 0.9, label=name,
                        color=colours[name])
            if hollow:
                plt.bar([x for x, _ in hollow], [y for _, y in hollow], width=width * 0.9, fill=False,
                        label=f"{name} (no CI)", color=colours[name])
        plt.hline(100 * comp.chance, "gray")
        plt.xticks(list(range(1, len(rows) + 1)), [str(k) for k in range(1, len(rows) + 1)])
        plt.ylim(0, 100)
        plt.title(f"{content.title}; dashed = chance")
        widget.refresh()
        numbered = [f"{k}: {condition_label(r.code).full}" for k, r in enumerate(rows, 1)]
        self.query_one("#figure-text", Static).update("\n".join(["Conditions: " + "; ".join(numbered), "",
                                                                 *figure_lines(content)]))

    def _draw_rt(self, comp: Comparison) -> None:
        """Per-participant ECDFs (share of trials answered within t): comparable across people with unequal n."""
        widget = self.query_one("#rt-hist", PlotextPlot)
        plt = widget.plt
        plt.clear_figure()
        curves = self.figure.rts if self.figure is not None else []
        lines = [f"{c.who}, {condition_label(c.group).full if c.group else 'all trials'}" for c in curves]
        colours = series_colours(lines)  # one colour per curve: never two alike
        for c, line in zip(curves, lines, strict=True):
            n = len(c.seconds)
            plt.plot(list(c.seconds), [(k + 1) / n for k in range(n)], label=f"{line} (n={n})",
                     color=rgb(colours[line]))
        plt.title("response times: cumulative share of trials per participant" if curves
                  else "no response times recorded")
        plt.xlabel("seconds")
        plt.ylim(0, 1)
        widget.refresh()

    # -- live refresh ---------------------------------------------------------------------------------------
    def _poll(self) -> None:
        if self._loading or self._signature is None or not self.query_one("#live", Switch).value:
            return
        try:
            testset, results = self._paths()
            signature = file_signature(self.source.watched(testset, results)) if results.exists() else ()
        except (BenchlabError, OSError):
            return
        if signature != self._signature:
            self.action_reload()

    def action_export(self) -> None:
        """Write the tables (markdown, csv) and the figure (png) beside the results folder, for the paper."""
        comp = self.comparison
        if comp is None:
            self._status("error: nothing loaded to export yet", error=True)
            return
        try:
            _testset, results = self._paths()
            folder = export_comparison(comp, results.parent / "comparison")
        except BenchlabError as exc:
            self._status(f"error: {exc}", error=True)
            return
        self._status(f"exported tables and figure to {folder}")

    def action_toggle_live(self) -> None:
        switch = self.query_one("#live", Switch)
        switch.value = not switch.value

    def action_close(self) -> None:
        self.dismiss(None)
