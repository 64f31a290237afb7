"""Whole-tuple subsets of a WorldSense test set (how the bundled sample was made; also for pilot studies).

Tuples are the scoring unit, so a subset keeps every trial of each chosen tuple and the same number of tuples in
every (problem, size) cell, which keeps the rebalanced averages meaningful and the CIs defined (>= 2 per cell).
Lines are copied byte for byte, so Keys, texts and the obfuscated gold stay exactly as published.
"""

from __future__ import annotations

import bz2
import json
import random
from dataclasses import dataclass
from pathlib import Path

from benchlab.data.atomic import atomic_write_bytes
from benchlab.data.errors import BenchlabError
from benchlab.data.text_io import iter_lines
from benchlab.data.worldsense.loader import find_trials_file
from benchlab.data.worldsense.results import find_results


@dataclass(frozen=True)
class SubsetSummary:
    tuples: int
    trials: int
    cells: dict[tuple[str, int], int]
    results_files: int


def make_subset(
    testset_dir: str | Path, dest_dir: str | Path, *, tuples_per_cell: int = 3, seed: int = 0,
    with_results: bool = True,
) -> SubsetSummary:
    """Write ``dest_dir/trials.jsonl.bz2`` (+ ``results/``) holding ``tuples_per_cell`` whole tuples per cell."""
    if tuples_per_cell < 1:
        raise BenchlabError("tuples_per_cell must be at least 1")
    source = find_trials_file(testset_dir)
    lines_by_tuple: dict[str, list[str]] = {}
    cell_of: dict[str, tuple[str, int]] = {}
    keys_by_tuple: dict[str, list[int]] = {}
    for lineno, raw, _complete in iter_lines(source):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            tid, cell, key = obj["tuple_ID"], (obj["problemname"], int(obj["problemsize"])), int(obj["Key"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise BenchlabError(f"not a trial record ({exc})", source, lineno) from exc
        lines_by_tuple.setdefault(tid, []).append(raw if raw.endswith("\n") else raw + "\n")
        keys_by_tuple.setdefault(tid, []).append(key)
        cell_of.setdefault(tid, cell)
    rng = random.Random(seed)
    by_cell: dict[tuple[str, int], list[str]] = {}
    for tid, cell in cell_of.items():
        by_cell.setdefault(cell, []).append(tid)
    chosen: set[str] = set()
    for cell in sorted(by_cell):
        candidates = by_cell[cell]
        chosen.update(rng.sample(candidates, min(tuples_per_cell, len(candidates))))
    ordered = [tid for tid in lines_by_tuple if tid in chosen]  # file order kept
    dest = Path(dest_dir)
    payload = "".join(line for tid in ordered for line in lines_by_tuple[tid]).encode("utf-8")
    atomic_write_bytes(dest / "trials.jsonl.bz2", bz2.compress(payload, 9))
    keys = {k for tid in ordered for k in keys_by_tuple[tid]}
    n_results = 0
    results_dir = Path(testset_dir) / "results"
    if with_results and results_dir.is_dir():
        for f in find_results(results_dir):
            kept = []
            for lineno, raw, _complete in iter_lines(f.path):
                if not raw.strip():
                    continue
                try:
                    key = int(json.loads(raw)["Key"])
                except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                    raise BenchlabError(f"not a results record ({exc})", f.path, lineno) from exc
                if key in keys:
                    kept.append(raw if raw.endswith("\n") else raw + "\n")
            atomic_write_text_lines(dest / "results" / f.path.relative_to(results_dir), kept)
            n_results += 1
    cells = {cell: sum(1 for tid in ordered if cell_of[tid] == cell) for cell in sorted(by_cell)}
    return SubsetSummary(tuples=len(ordered), trials=len(keys), cells=cells, results_files=n_results)


def atomic_write_text_lines(path: Path, lines: list[str]) -> None:
    atomic_write_bytes(path, "".join(lines).encode("utf-8"))
