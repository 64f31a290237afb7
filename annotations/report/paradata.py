"""Paradata from the events logs: time to completion (median, IQR), breaks, and where unfinished sessions stopped;
integrity hashes of every input file and the software versions that read them."""

from __future__ import annotations

import hashlib
import platform
import statistics
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from benchlab.annotations.exclusions.dataset import StudyData
from benchlab.annotations.report.flow import all_statuses


@dataclass
class Paradata:
    completion_min: list[float]
    breaks: int
    break_s: list[float]
    dropouts: list[tuple[str, str, str]]  # (participant, session, where)


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """Median and IQR (inclusive quartiles: defined for two values too)."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[1], q[0], q[2]


def paradata(data: StudyData, simulated: set[str]) -> Paradata:
    minutes: list[float] = []
    breaks, pauses = 0, []
    for who, events in data.events().items():
        if who in simulated:
            continue
        by_session: dict[str, list[dict[str, Any]]] = {}
        for e in events:
            by_session.setdefault(str(e.get("session", "")), []).append(e)
        for session_events in by_session.values():
            starts = [e["mono"] for e in session_events if e.get("event") in ("started",) and "mono" in e]
            ends = [e["mono"] for e in session_events if e.get("event") == "completed" and "mono" in e]
            if starts and ends and ends[-1] >= starts[0]:
                minutes.append((ends[-1] - starts[0]) / 60)
            opened = None
            for e in session_events:
                if e.get("event") == "break_start":
                    breaks += 1
                    opened = e.get("mono")
                elif e.get("event") == "break_end" and opened is not None and "mono" in e:
                    pauses.append(float(e["mono"]) - float(opened))
                    opened = None
    dropouts = []
    for s in all_statuses(data):
        if s.participant in simulated or s.state in ("finished", "not started"):
            continue
        where = s.state if s.trial is None else f"{s.state} at trial {s.trial} of {s.n_trials}"
        dropouts.append((s.participant, s.session, where))
    return Paradata(minutes, breaks, pauses, dropouts)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def integrity_files(data: StudyData) -> list[tuple[str, Path]]:
    """(kind, path) of the study file, its texts, the plans, the items and the results."""
    found: list[tuple[str, Path]] = []
    if data.study is not None:
        found.append(("study file", data.study.path))
        for key in ("consent_file", "instructions_file", "participants_file"):
            for values in [data.study.spec.options, *(a.options for a in data.study.spec.arms)]:
                name = values.get(key)
                if isinstance(name, str) and (data.study.folder / name).is_file():
                    found.append((key.replace("_file", ""), data.study.folder / name))
        if data.study.assignments_path.is_file():
            found.append(("assignments", data.study.assignments_path))
    found += [("plan", p) for p in data.plans]
    datasets = {Path(d) for d in _datasets(data)}
    for d in sorted(datasets):
        files = [d] if d.is_file() else sorted(p for p in d.rglob("*") if p.is_file())[:50] if d.is_dir() else []
        found += [("items", p) for p in files]
    for folder in data.results:
        found += [("results", p) for p in sorted(folder.rglob("*")) if p.is_file()]
    return list(dict.fromkeys(found))


def _datasets(data: StudyData) -> list[str]:
    import json  # deferred: only the integrity section reads plans as raw JSON

    out = []
    for plan in data.plans:
        try:
            out.append(str(json.loads(plan.read_text(encoding="utf-8")).get("dataset", "")))
        except (OSError, ValueError):
            continue
    return [d for d in dict.fromkeys(out) if d]


def versions() -> list[tuple[str, str]]:
    out = [("python", sys.version.split()[0]), ("platform", platform.platform())]
    for name in ("benchlab", "numpy", "pandas", "scipy", "pydantic", "textual"):
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            continue
    return out
