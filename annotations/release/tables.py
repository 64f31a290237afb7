"""The release bundle's tables, computed from its ``trials.csv`` alone, so anyone can rebuild them:
``python -m benchlab.annotations.release.tables trials.csv`` prints the same CSV the bundle holds."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd


def summary_table(trials: pd.DataFrame) -> pd.DataFrame:
    """Per participant and condition (scored trials of people, excluded ones marked): trials, accuracy, median RT;
    then the pooled rows (mean of the included people's accuracies)."""
    scored = trials[~trials["practice"].astype(str).str.lower().isin(["true", "1"])].copy()
    scored["correct"] = scored["correct"].astype(str).str.lower().isin(["true", "1"]).astype(float)
    scored["rt_ms"] = pd.to_numeric(scored["rt_ms"], errors="coerce")
    excluded = scored["excluded"].fillna("").astype(str) if "excluded" in scored.columns else ""
    scored["excluded"] = excluded
    rows = (scored.groupby(["participant", "condition"], sort=True)
            .agg(trials=("correct", "size"), accuracy=("correct", "mean"), median_rt_ms=("rt_ms", "median"),
                 excluded=("excluded", "first")).reset_index())
    kept = rows[rows["excluded"] == ""]
    pooled = (kept.groupby("condition", sort=True)
              .agg(trials=("trials", "sum"), accuracy=("accuracy", "mean"), median_rt_ms=("median_rt_ms", "median"))
              .reset_index().assign(participant="pooled (included people)", excluded=""))
    out = pd.concat([rows, pooled[rows.columns]], ignore_index=True)
    out["accuracy"] = out["accuracy"].round(6)
    out["median_rt_ms"] = out["median_rt_ms"].round(3)
    return out


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0] if args else "trials.csv")
    sys.stdout.write(summary_table(pd.read_csv(path, dtype={"participant": str})).to_csv(index=False))


if __name__ == "__main__":
    main()
