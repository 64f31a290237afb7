"""What a study folder (or results folders) holds, read once for exclusions, reports, withdrawals and releases.

``DIR`` is a study folder (``study.toml``: its benchmark, its output folder, its declared rules and assignments) or
the output folders of sessions (``--out``: ``results/``, ``practice/``, ``sessions/``) or their ``results``
folders. The benchmark comes from the study file, else from the saved plans (their ``task``); plans of two
benchmarks in one report are refused naming a plan of each (their tables cannot be one analysis).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.annotations.exclusions.evaluate import ExclusionLog, SessionProgress, exclusion_log, session_events
from benchlab.annotations.exclusions.rules import Rule, declared_rules
from benchlab.annotations.registry import registry
from benchlab.annotations.task import ExportsTrials, TrialRows
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    import pandas as pd

    from benchlab.annotations.study import Study


@dataclass
class StudyData:
    """One benchmark's sessions under one or more output folders, with the study that ran them (if any)."""

    benchmark: str
    outs: list[Path]
    study: Study | None
    rules: list[Rule]
    plans: list[Path]
    testset: Path | None = None
    _trials: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def results(self) -> list[Path]:
        """The results folders ``compare`` and ``export trials`` read."""
        return [o / "results" for o in self.outs if (o / "results").is_dir()]

    def trials(self) -> pd.DataFrame:
        """Every recorded trial (practice and scored), as ``export trials`` gives it."""
        if self._trials is None:
            self._trials = _trials_frame(self.benchmark, self.results, self.testset)
        return self._trials

    def progress(self) -> list[SessionProgress]:
        """Each planned session: finished (its ``completed`` event, or every planned scored trial recorded) or not,
        with the scored trials recorded and planned."""
        trials = self.trials()
        scored = trials[trials["practice"] == False]  # noqa: E712 (a pandas boolean column)
        sessions = scored["session"].astype(str) if "session" in scored.columns else None
        out = []
        for plan_path in self.plans:
            plan = json.loads(plan_path.read_text(encoding="utf-8"))
            who, session = str(plan.get("participant", "")), str(plan.get("session", ""))
            planned = sum(len(b) for b in plan.get("blocks", []))
            mine = scored["participant"] == who
            if sessions is not None:
                mine &= sessions == session
            recorded = int(mine.sum())
            events = plan_path.with_name(plan_path.name.removesuffix(".plan.json") + ".events.jsonl")
            done = events.is_file() and '"event": "completed"' in events.read_text(encoding="utf-8")
            out.append(SessionProgress(who, session, "finished" if done or recorded >= planned else "unfinished",
                                       recorded, planned))
        return out

    def events(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for o in self.outs:
            for who, events in session_events(o).items():
                out.setdefault(who, []).extend(events)
        return out

    def assignments(self) -> list[dict[str, Any]]:
        return self.study.assignments() if self.study is not None else []

    def exclusions(self, extra: Sequence[Rule] = (), *, declared: bool = True) -> ExclusionLog:
        """The exclusion log: the study's declared rules (unless ``declared`` is False) and ``extra`` ones."""
        rules = [*(self.rules if declared else []), *extra]
        return exclusion_log(rules, self.trials(), self.progress(), self.events(), self.assignments())


def _study_above(path: Path) -> Path | None:
    """The study folder whose output ``path`` is (a ``study.toml`` one or two levels up, naming it as ``out``)."""
    from benchlab.annotations.study import STUDY_FILE  # deferred: see load_data

    resolved = path.resolve()
    for folder in (resolved.parent, resolved.parent.parent):
        if (folder / STUDY_FILE).is_file() and not (resolved / STUDY_FILE).is_file():
            return folder
    return None


def _plans_under(out: Path) -> list[Path]:
    return sorted([*out.glob("sessions/*.plan.json"), *out.glob("*/sessions/*.plan.json"),
                   *out.glob("*/*/sessions/*.plan.json")])


def _task_of(plan: Path) -> tuple[str, str]:
    try:
        data = json.loads(plan.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BenchlabError(f"damaged session plan ({exc.msg})", plan, exc.lineno) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchlabError(f"damaged session plan ({exc})", plan) from None
    if not isinstance(data, dict) or not isinstance(data.get("task"), str):
        raise BenchlabError("not a benchlab session plan (no task)", plan, 1)
    return data["task"], str(data.get("dataset", ""))


def load_data(paths: Sequence[Path]) -> StudyData:
    """Read ``paths`` (a study folder, or sessions' output / results folders): one line naming the file when a
    study file is missing or damaged, nothing is found, or two benchmarks are mixed."""
    # deferred: the study loader imports every task's session code; only commands that read studies need it
    from benchlab.annotations.study import STUDY_FILE, load_study

    if not paths:
        raise BenchlabError("give a study folder or results folders")
    study = None
    outs: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise BenchlabError("no such folder", path)
        owner = _study_above(path)
        if owner is not None:  # a study's results or output folder: the study's rules apply there too
            path = owner
        if (path.is_dir() and (path / STUDY_FILE).exists()) or path.name == STUDY_FILE:
            if study is not None:
                raise BenchlabError("give one study folder at a time", path)
            study = load_study(path, registry())
            outs.append(study.out)
        elif path.is_dir() and path.name == "results":
            outs.append(path.parent)
        elif path.is_dir() and (path / "results").is_dir():
            outs.append(path)
        else:
            raise BenchlabError("not a study folder (study.toml) nor a sessions' output folder (results/)", path)
    outs = list(dict.fromkeys(o.resolve() for o in outs))
    plans = [p for o in outs for p in _plans_under(o)]
    tasks: dict[str, Path] = {}
    datasets: list[str] = []
    for plan in plans:
        task, dataset = _task_of(plan)
        tasks.setdefault(task, plan)
        datasets.append(dataset)
    if study is not None:
        benchmark = study.spec.benchmark
        other = next((p for t, p in tasks.items() if t != benchmark), None)
        if other is not None:
            raise BenchlabError(f"a session of another benchmark ({_task_of(other)[0]}) in a {benchmark} study: "
                                "one report per design", other)
    elif len(tasks) > 1:
        (a, pa), (b, pb) = list(tasks.items())[:2]
        raise BenchlabError(f"mixed designs: sessions of {a} ({pa.name}) and {b}; report each benchmark on its own",
                            pb)
    elif tasks:
        benchmark = next(iter(tasks))
    else:
        raise BenchlabError("no sessions here (no saved plans under sessions/)", outs[0] if outs else None)
    rules = declared_rules(study.spec.exclusions, study.path) if study is not None else []
    testset = Path(datasets[0]) if datasets and datasets[0] and benchmark == _needs_testset(benchmark) else None
    return StudyData(benchmark, outs, study, rules, plans, testset)


def _export(benchmark: str) -> TrialRows:
    """The benchmark's trial rows (the rows ``export trials`` writes); one line when it offers none."""
    task = registry().benchmarks.get(benchmark)
    if not isinstance(task, ExportsTrials):
        raise BenchlabError(f"{benchmark!r} offers no trial export: exclusions, reports and releases need one")
    return task.trial_export


def _needs_testset(benchmark: str) -> str | None:
    """``benchmark`` when its trial export needs the data set (gold answers), else None."""
    return benchmark if _export(benchmark).testset_needed is not None else None


def _trials_frame(benchmark: str, paths: list[Path], testset: Path | None) -> pd.DataFrame:
    """Every recorded trial as the benchmark's export reads it (read here, not through ``export trials``, which
    itself calls the exclusions: one reader each way would be an import cycle), with the columns the rules read
    typed: ``practice`` and ``correct`` booleans, ``rt_ms`` numbers."""
    # deferred: pandas loads only when trials are read (this module loads with the CLI)
    import pandas as pd

    rows = _export(benchmark).rows(paths, testset)
    frame = pd.DataFrame(rows)
    for column in ("participant", "practice", "correct", "rt_ms", "item", "condition", "simulated",
                   "onset_source"):
        if column not in frame.columns:
            frame[column] = None
    frame["participant"] = frame["participant"].map(lambda v: None if v is None else str(v))
    frame["practice"] = frame["practice"].astype("boolean")
    frame["correct"] = frame["correct"].astype("boolean")
    frame["rt_ms"] = pd.to_numeric(frame["rt_ms"], errors="coerce")
    return frame
