"""The Results screen lists the model runs beside the results folder with their provenance (and shows no such
table when there are none, so screens without model runs look as before)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from benchlab.data.models.provenance import ItemHashes, RunProvenance
from benchlab.tui.screens.results import ResultsScreen
from tests import test_results_screen
from tests.test_results_screen import Host, settle, table_text

lab = test_results_screen.lab  # the same fixture: a test set, a published model and two people


async def test_results_screen_lists_model_runs_with_provenance(lab: Path) -> None:
    screen = ResultsScreen("worldsense", "ts", "lab/results", now=lambda: "12:00:00")
    async with Host(screen).run_test(size=(160, 60)) as pilot:
        await settle(screen, pilot)
        assert not screen.query_one("#model-runs", DataTable).display  # no runs: no table
    RunProvenance(task="worldsense", model="openai-api/llamacpp/smollm2", model_name="smollm2",
                  base_url="http://127.0.0.1:8080/v1", template="basic", created="2026-11-26T05:00:00+00:00",
                  items=[ItemHashes(id=str(i), prompt_sha256="0" * 64) for i in range(8)],
                  correct=4).save(lab / "lab" / "models")
    screen = ResultsScreen("worldsense", "ts", "lab/results", now=lambda: "12:00:00")
    async with Host(screen).run_test(size=(160, 60)) as pilot:
        await settle(screen, pilot)
        table = screen.query_one("#model-runs", DataTable)
        assert table.display
        (row,) = table_text(table)
        assert row[0] == "openai-api/llamacpp/smollm2 @ http://127.0.0.1:8080/v1"
        assert row[1:] == ["worldsense", "basic", "2026-11-26T05:00", "8", "4", "run"]
