"""The Results screen: load, tables with CIs, chart, live refresh while a participant's file grows, errors, launcher."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click
import pandas as pd
import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Input, Select, Static, TabbedContent

from benchlab.data.analysis.compare import POOLED
from benchlab.tui.screens.results import ResultsScreen
from tests.compare_fixtures import make_testset, write_results, wrong
from tests.test_compare_sort import write_csv


class Host(App[None]):
    """A bare app hosting the Results screen, as the launcher pushes it."""

    def __init__(self, screen: ResultsScreen) -> None:
        super().__init__()
        self.results_screen = screen

    def compose(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        self.push_screen(self.results_screen)


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    ts = make_testset(tmp_path / "ts")
    write_results(ts / "results" / "basic___GPT4___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (p == "Infer.normal" and s == 4) else g)
    out = tmp_path / "lab" / "results"
    write_results(out / "basic___human-p1___results.jsonl", lambda p, s, t, i, g: g,
                  rt=lambda p, s, t, i: 2000.0 + 300 * t + 50 * i)
    write_results(out / "basic___human-p2___results.jsonl", lambda p, s, t, i, g: g if t < 2 else wrong(g),
                  rt=lambda p, s, t, i: 3000.0 + 400 * t)
    return tmp_path


def table_text(table: DataTable[Any]) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(r)] for r in range(table.row_count)]


async def settle(screen: ResultsScreen, pilot: Any, loads: int = 1, timeout_s: float = 90.0) -> None:
    """Wait for the worker thread to finish ``loads`` loads (generous: CI machines are shared and slow)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        await pilot.pause(0.05)
        if screen.loads >= loads and not screen._loading:
            return
    raise AssertionError(f"the comparison did not load: {screen.query_one('#status', Static).render()}")


def make_screen(**kw: Any) -> ResultsScreen:
    screen = ResultsScreen("worldsense", "ts", "lab/results", now=lambda: "12:00:00", **kw)
    screen.POLL_SECONDS = 0.1
    return screen


async def test_loads_tables_with_cis_and_tests(lab: Path) -> None:
    screen = make_screen()
    async with Host(screen).run_test(size=(140, 45)) as pilot:
        await settle(screen, pilot)
        rows = {r[0]: r for r in table_text(screen.query_one("#accuracy", DataTable))}
        assert set(rows) == {"p1", "p2", POOLED, "GPT4"}
        comp = screen.comparison
        assert comp is not None
        pooled = comp.cell(POOLED, "overall")
        assert pooled is not None
        assert rows[POOLED][1] == pooled.text() and "[" in rows[POOLED][1]
        tests = table_text(screen.query_one("#tests", DataTable))
        assert any(r[1] == "GPT4" and "crossed people x items" in r[-1] for r in tests)
        status = str(screen.query_one("#status", Static).render())
        assert "2 participants" in status and "1 model," in status and "12:00:00" in status
        # the chart tab draws bars for pooled humans and the model
        screen.query_one(TabbedContent).active = "tab-chart"
        await pilot.pause()
        plot = screen.query_one("#bars")
        assert plot.plt._active.monitor.x  # type: ignore[attr-defined]  (plotext keeps the drawn series)


async def test_simulated_pilot_has_its_own_row_and_the_cli_default_resamples(lab: Path) -> None:
    """QA: a `--simulate oracle` pilot was pooled with people here too; and the screen used 2000 resamples while
    the CLI used 5000, so the same data printed different CIs in the app and in `benchlab compare`."""
    from benchlab.tui.cli import cli

    compare_group = cli.commands["compare"]
    assert isinstance(compare_group, click.Group)
    compare_worldsense_cmd = compare_group.get_command(click.Context(compare_group), "worldsense")
    assert compare_worldsense_cmd is not None

    write_results(lab / "lab" / "results" / "basic___human-PILOT___results.jsonl", lambda p, s, t, i, g: g,
                  extra={"simulated": "oracle"})
    screen = make_screen()
    async with Host(screen).run_test(size=(140, 45)) as pilot:
        await settle(screen, pilot)
        rows = {r[0]: r for r in table_text(screen.query_one("#accuracy", DataTable))}
        assert set(rows) == {"p1", "p2", "PILOT (simulated oracle)", POOLED, "GPT4"}
        comp = screen.comparison
        assert comp is not None
        assert comp.cell(POOLED, "overall").n_participants == 2  # type: ignore[union-attr]
        status = str(screen.query_one("#status", Static).render())
        assert "2 participants" in status and "1 simulated (not pooled)" in status
        boot = next(p for p in compare_worldsense_cmd.params if p.name == "n_boot").default
        assert any(f"({boot} resamples" in n for n in comp.notes)
        folder = lab / "lab" / "comparison"
        screen.action_export()
        assert "PILOT (simulated oracle)" in (folder / "tables.md").read_text()


async def test_live_refresh_picks_up_a_growing_file(lab: Path) -> None:
    screen = make_screen()
    async with Host(screen).run_test(size=(140, 45)) as pilot:
        await settle(screen, pilot)
        assert [r[0] for r in table_text(screen.query_one("#accuracy", DataTable))].count("p3") == 0
        # a third participant starts answering: a new file appears, then grows
        f = lab / "lab" / "results" / "basic___human-p3___results.jsonl"
        write_results(f, lambda p, s, t, i, g: g, problems=("Infer.trivial",), sizes=(3,), tuples_per_cell=1)
        await settle(screen, pilot, loads=2)
        rows = {r[0]: r for r in table_text(screen.query_one("#accuracy", DataTable))}
        # issue 11: one tuple of one size is partial data, marked and not shown as an Infer.trivial score
        assert "p3 [partial]" in rows and rows["p3 [partial]"][2] == "partial (1 of 2 cells)"
        before = screen.loads
        with open(f, "a") as handle:
            handle.write('{"Key":-1152921504606846976,"resp":"FALSE"}\n')  # Infer.trivial s3 t0 already answered
            handle.write('{"Key":-1152921504606846966,"resp":"TRUE"}\n')
        await settle(screen, pilot, loads=before + 1)
        # with live refresh off, a change is not picked up
        await pilot.press("ctrl+l")
        loads = screen.loads
        f.write_text(f.read_text() + '{"Key":-1152921504606846965,"resp":"TRUE"}\n')
        await pilot.pause(0.5)
        assert screen.loads == loads


async def test_empty_folder_is_picked_up_when_the_first_answers_arrive(lab: Path) -> None:
    (lab / "later").mkdir()
    screen = ResultsScreen("worldsense", "ts", "later", now=lambda: "12:00:00")
    screen.POLL_SECONDS = 0.1
    async with Host(screen).run_test(size=(140, 45)) as pilot:
        status = screen.query_one("#status", Static)
        for _ in range(400):
            await pilot.pause(0.05)
            if "error" in str(status.render()):
                break
        assert status.has_class("error")
        write_results(lab / "later" / "basic___human-p9___results.jsonl", lambda p, s, t, i, g: g)
        await settle(screen, pilot)
        assert not status.has_class("error")
        assert table_text(screen.query_one("#accuracy", DataTable))[0][0] == "p9"


async def test_export_writes_tables_and_figure(lab: Path) -> None:
    screen = make_screen()
    async with Host(screen).run_test(size=(140, 45)) as pilot:
        await settle(screen, pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        out = lab / "lab" / "comparison"
        assert "| humans (pooled) |" in (out / "tables.md").read_text()
        # One plain CSV per table, each readable as it is (no "#" title lines between tables).
        csvs = sorted((out / "tables").glob("*.csv"))
        assert len(csvs) >= 2 and not (out / "tables.csv").exists()
        frames = [pd.read_csv(path) for path in csvs]
        assert any(list(f.columns[:4]) == ["who", "condition", "kind", "accuracy"] for f in frames)
        assert not any(path.read_text().startswith("#") for path in csvs)
        assert (out / "figure.png").read_bytes()[:4] == b"\x89PNG"
        assert "exported" in str(screen.query_one("#status", Static).render())


async def test_attention_criterion_set_in_the_screen(lab: Path) -> None:
    screen = make_screen()
    async with Host(screen).run_test(size=(140, 45)) as pilot:
        await settle(screen, pilot)
        assert screen.comparison is not None and not screen.comparison.flagged
        screen.query_one(TabbedContent).active = "tab-people"
        await pilot.pause()
        field = screen.query_one("#min-control", Input)
        field.focus()
        await pilot.press("0", ".", "9", "enter")
        await settle(screen, pilot, loads=2)
        assert [e.name for e in screen.comparison.flagged] == ["p2"]
        assert "p2 (control accuracy 67% < 90%)" in str(screen.query_one("#flags", Static).render())
        rows = [r[0] for r in table_text(screen.query_one("#accuracy", DataTable))]
        assert "p2 [flagged]" in rows
        field.value = "7"
        await pilot.press("enter")
        await pilot.pause()
        assert "must be between 0 and 1" in str(screen.query_one("#status", Static).render())
        rtq = table_text(screen.query_one("#rt-quantiles", DataTable))
        assert rtq[0][:2] == ["p1", "Q1"]


async def test_switch_to_sort_and_errors(lab: Path) -> None:
    write_csv(lab / "sort" / "250-s20-hf_Llama3_results.csv", "Llama3", [i % 2 == 0 for i in range(20)])
    write_csv(lab / "sort" / "250-s20-human-p1_results.csv", "human-p1", [i < 16 for i in range(20)], "p1",
              [1000.0 + 100 * i for i in range(20)])
    screen = make_screen()
    async with Host(screen).run_test(size=(140, 45)) as pilot:
        await settle(screen, pilot)
        screen.query_one("#benchmark", Select).value = "sort"
        await pilot.pause()
        assert not screen.query_one("#testset", Input).display
        results = screen.query_one("#results", Input)
        results.value = "nowhere"
        await pilot.click("#load")
        for _ in range(100):
            await pilot.pause(0.05)
            if "error" in str(screen.query_one("#status", Static).render()):
                break
        status = screen.query_one("#status", Static)
        assert "no such results folder" in str(status.render()) and status.has_class("error")
        results.value = "sort"
        results.focus()
        await pilot.press("enter")
        await settle(screen, pilot, loads=2)
        rows = {r[0]: r for r in table_text(screen.query_one("#accuracy", DataTable))}
        assert rows["p1"][1].startswith("80.0") and "Llama3" in rows
        assert not status.has_class("error")


async def test_results_entry_opens_from_launcher(lab: Path) -> None:
    from benchlab.tui.app import BenchlabApp
    from benchlab.tui.screens.launcher import LauncherScreen, launcher_entries

    entries = launcher_entries()
    assert "results" in entries
    app = BenchlabApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LauncherScreen)
        app.push_screen(entries["results"].screen())
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LauncherScreen)


def test_snapshot_tables(lab: Path, snap_compare: Any) -> None:
    screen = make_screen(live=False)

    async def before(pilot: Any) -> None:
        await settle(screen, pilot)

    assert snap_compare(Host(screen), terminal_size=(150, 42), run_before=before)


def test_snapshot_chart(lab: Path, snap_compare: Any) -> None:
    screen = make_screen(live=False)

    async def before(pilot: Any) -> None:
        await settle(screen, pilot)
        screen.query_one(TabbedContent).active = "tab-chart"
        await pilot.pause()

    assert snap_compare(Host(screen), terminal_size=(120, 36), run_before=before)


async def test_chart_tab_shows_the_figure_content_with_n_intervals_and_notes(lab: Path) -> None:
    """The terminal chart gives what the paper figure gives: every condition by its readable name, n under the
    pooled humans, a 95% CI (or "no CI") for every bar, pilots left out with a note, RT per participant."""
    write_results(lab / "lab" / "results" / "basic___human-PILOT___results.jsonl", lambda p, s, t, i, g: g,
                  extra={"simulated": "oracle"})
    screen = make_screen(live=False)
    async with Host(screen).run_test(size=(160, 50)) as pilot:
        await settle(screen, pilot)
        screen.query_one(TabbedContent).active = "tab-chart"
        await pilot.pause()
        text = str(screen.query_one("#figure-text", Static).render())
        comp, content = screen.comparison, screen.figure
        assert comp is not None and content is not None
        for name in ("overall (mean over conditions)", "inference (trivial control)", "inference (normal)",
                     "completeness (normal)"):
            assert name in text
        pooled = comp.cell(POOLED, "Infer.normal")
        assert pooled is not None
        assert f"[{100 * pooled.ci_low:.1f}, {100 * pooled.ci_high:.1f}]" in text
        assert f"n=2 people, {pooled.n_units} tuples" in text
        bar_lines = [ln for ln in text.splitlines() if "|" in ln]
        assert len(bar_lines) == 2 * len(comp.conditions)  # pooled humans and GPT4 in every condition
        assert all("[" in ln or "no CI" in ln for ln in bar_lines)
        assert "PILOT" not in "\n".join(bar_lines) and "Left out: simulated pilots PILOT" in text
        assert "WorldSense: accuracy, 2 people vs 1 model (95% CI)" in text
        screen.query_one(TabbedContent).active = "tab-rt"
        await pilot.pause()
        monitor = screen.query_one("#rt-hist").plt._active.monitor  # type: ignore[attr-defined]
        assert any(lab.startswith("p1, inference (normal) (n=") for lab in monitor.label)
        assert not any("PILOT" in lab for lab in monitor.label)
        assert all(max(y) == pytest.approx(1.0) for y in monitor.y)  # cumulative shares: comparable across n


async def test_a_spinner_shows_while_the_comparison_computes(lab: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 12: waits over ~0.5 s show progress; the comparison takes seconds with a full test set."""
    import threading

    release = threading.Event()
    real = ResultsScreen.source.fget  # type: ignore[attr-defined]

    class Slow:
        def __init__(self, source: Any) -> None:
            self.inner = source
            self.testset_label = source.testset_label

        def watched(self, *args: Any) -> Any:
            return self.inner.watched(*args)

        def build(self, *args: Any) -> Any:
            release.wait(30)
            return self.inner.build(*args)

    monkeypatch.setattr(ResultsScreen, "source", property(lambda self: Slow(real(self))))
    screen = make_screen()
    async with Host(screen).run_test(size=(140, 45)) as pilot:
        await pilot.pause(0.2)
        busy = screen.query_one("#busy")
        assert screen._loading and busy.display and busy.region.area > 0
        release.set()
        await settle(screen, pilot)
        assert not busy.display
