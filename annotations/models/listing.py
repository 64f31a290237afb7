"""The model runs under a folder with their provenance, as rows for ``benchlab models list`` and the Results
screen: task, model (and base URL), prompt template, date, items, correct, where the answers came from."""

from __future__ import annotations

from pathlib import Path

from benchlab.data.models.provenance import read_runs

COLUMNS = ("task", "model", "template", "date", "items", "correct", "source")


def run_rows(folder: Path, task: str | None = None) -> list[dict[str, str]]:
    """One row per run or import file under ``folder`` (of ``task`` when given), oldest first."""
    rows = []
    for _path, prov in read_runs(folder):
        if task is not None and prov.task != task:
            continue
        source = prov.source if prov.source == "run" else f"{prov.source}: {Path(prov.source_file).name}"
        model = prov.model + (f" @ {prov.base_url}" if prov.base_url else "")
        rows.append({"task": prov.task, "model": model, "template": prov.template, "date": prov.created[:16],
                     "items": str(len(prov.items)), "correct": str(prov.correct),
                     "source": source})
    return rows


def runs_table(folder: Path, task: str | None = None) -> str:
    rows = run_rows(folder, task)
    if not rows:
        return f"no model runs under {folder}"
    widths = {c: max(len(c), *(len(r[c]) for r in rows)) for c in COLUMNS}
    lines = ["  ".join(c.ljust(widths[c]) for c in COLUMNS)]
    lines += ["  ".join(r[c].ljust(widths[c]) for c in COLUMNS) for r in rows]
    return "\n".join(line.rstrip() for line in lines)
