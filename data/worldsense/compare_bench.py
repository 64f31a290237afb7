"""How long the humans-vs-models comparison takes next to the benchmark's scoring alone, on synthetic participants
answering WorldSense tuples (seeded, so the figures are comparable between machines and versions)."""

from __future__ import annotations

import os
import random
import resource
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.data.worldsense.columns import read_trial_columns
from benchlab.data.worldsense.compare import compare_worldsense
from benchlab.data.worldsense.results import write_results
from benchlab.data.worldsense.scoring import score_testset_dir

if TYPE_CHECKING:
    import pandas as pd


def _write_synthetic_participants(trials: pd.DataFrame, out: Path, participants: int, tuples_each: int) -> int:
    """One results file per synthetic participant (skill 55-95%, log-normal RTs); the number of answers written."""
    by_tuple = trials.groupby("tuple_ID", sort=False)
    tuple_ids = list(by_tuple.groups)
    rng = random.Random(7)
    lines_total = 0
    for p in range(participants):
        chosen = rng.sample(tuple_ids, min(tuples_each, len(tuple_ids)))
        skill = 0.55 + 0.4 * rng.random()
        lines: list[dict[str, Any]] = []
        for tid in chosen:
            group = by_tuple.get_group(tid)
            for key, options, gold in zip(group["Key"].tolist(), group["expectedresp"].tolist(),
                                          group["goldresp"].tolist(), strict=True):
                resp = gold if rng.random() < skill else rng.choice(str(options).split("|"))
                lines.append({"Key": int(key), "resp": str(resp), "rt_ms": rng.lognormvariate(8.5, 0.5)})
        lines_total += write_results(out / f"basic___human-s{p:03d}___results.jsonl", lines)
    return lines_total


def bench_compare_worldsense(testset: Path, participants: int, tuples_per_participant: int, n_boot: int) -> str:
    """Time ``compare worldsense`` against ``score worldsense`` on ``testset``; the figures as printed lines."""
    trials = read_trial_columns(testset).frame
    n_tuples = trials["tuple_ID"].nunique()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results"
        out.mkdir()
        lines_total = _write_synthetic_participants(trials, out, participants, tuples_per_participant)
        t0 = time.perf_counter()
        score_testset_dir(testset, [testset / "results", out] if (Path(testset) / "results").is_dir() else [out])
        t_score = time.perf_counter() - t0
        t0 = time.perf_counter()
        comp = compare_worldsense(testset, [out], n_boot=n_boot)
        t_compare = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return "\n".join([
        f"data set: {testset} ({len(trials)} trials, {n_tuples} tuples); {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f}",
        f"synthetic participants: {participants} x {tuples_per_participant} tuples ({lines_total} answers), "
        f"models: {len(comp.models)}, bootstrap resamples: {n_boot}",
        f"benchmark scoring alone (score worldsense): {t_score:.2f} s",
        f"full comparison (scoring + CIs + tests + RT + agreement): {t_compare:.2f} s "
        f"(x{t_compare / t_score:.1f} the scoring)",
        f"cells: {len(comp.cells)}, tests: {len(comp.tests)}; peak RSS {rss_mb:.0f} MB",
    ])
