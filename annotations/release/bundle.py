"""``benchlab release DIR --out BUNDLE``: a data set that can be published.

What goes in: the per-trial data (``trials.csv``) with participant ids re-keyed to ``S001``... in a random order
(the mapping is not written anywhere), platform ids, wall-clock stamps, source paths and free-text columns dropped,
and any column that still holds an original id dropped; the declared exclusions as a column; a codebook; the
materials (the study file, consent and instructions texts, the item ids with a SHA-256 of each item's text); the
tables rebuilt from ``trials.csv`` by one command (``tables/summary.csv``, ``REPRODUCE.md``); the report with the
ids re-keyed; a SHA-256 manifest (``SHA256SUMS``, ``sha256sum -c`` reads it). It refuses a non-empty out folder.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from benchlab.annotations.exclusions.dataset import StudyData
from benchlab.annotations.options import OptionError
from benchlab.annotations.release.tables import summary_table
from benchlab.annotations.trial_export import COMMON_COLUMNS, exporter
from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    import pandas as pd

#: Columns never released: where the files were, when each answer was given (links to platform logs).
DROPPED = {"source_file", "timestamp", "wall_clock"}
#: Column names of platform ids and free text, dropped wherever they appear.
PRIVATE = re.compile(r"(^|_)(prolific\w*|worker\w*|assignment_id|hit_id|platform\w*|pid|user_agent|ip|address|email|"
                     r"comments?|feedback|explanation|free_text)($|_)", re.IGNORECASE)
TEXT = re.compile(r"(_text|^text)$")


def check_out(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BenchlabError("the release folder is not empty (a release never overwrites): choose a new folder", out)


def release(data: StudyData, out: Path, report_md: str | None = None,
            tables: Mapping[str, pd.DataFrame] | None = None) -> list[Path]:
    """Write the bundle; ``tables`` are the comparison's benchmark-specific numeric tables (the report's
    ``Report.tables``: SORT's reading times, seen share and delays per person and pooled), written as
    ``tables/<name>.csv`` with the ids re-keyed like everything else."""
    check_out(out)
    trials = data.trials().copy()
    log = data.exclusions()
    reasons = {p: "; ".join(r) for p, r in log.excluded.items()}
    people = list(dict.fromkeys(str(p) for p in trials["participant"].dropna()))
    secrets.SystemRandom().shuffle(people)
    keys = {p: f"S{i + 1:03d}" for i, p in enumerate(people)}
    text_cols = [c for c in trials.columns if TEXT.search(c)]
    hashes = {}
    if text_cols:
        for item, rows in trials.groupby("item"):
            joined = "\n".join(str(rows.iloc[0][c]) for c in text_cols)
            hashes[str(item)] = hashlib.sha256(joined.encode()).hexdigest()
    trials["excluded"] = trials["participant"].map(lambda p: reasons.get(str(p), "")).astype("string")
    trials["participant"] = trials["participant"].map(lambda p: keys.get(str(p), "")).astype("string")
    drop = [c for c in trials.columns if c != "participant" and (c in DROPPED or PRIVATE.search(c) or TEXT.search(c))]
    trials = trials.drop(columns=drop)
    leaking = [c for c in trials.columns if c != "participant" and bool(trials[c].map(
        lambda v: any(p in str(v) for p in people if len(p) > 1)).any())]
    trials = trials.drop(columns=leaking)
    trials.insert(0, "benchmark", data.benchmark)
    export = exporter(data.benchmark)
    notes = {**COMMON_COLUMNS, **export.columns, "excluded": "why declared exclusion rules left this person out "
             "(rule: figure vs threshold); empty for people analysed", "participant": "re-keyed participant id "
             "(S001...; the mapping to original ids is not kept)"}
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchlabError(f"cannot create the release folder ({exc.strerror or exc})", out) from exc
    written: list[Path] = []

    def put(rel: str, text: str) -> None:
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
        written.append(path)

    put("trials.csv", trials.to_csv(index=False))
    put("codebook.md", "# Codebook of trials.csv\n\n| column | meaning |\n|---|---|\n" + "".join(
        f"| {c} | {notes.get(c, 'task-specific column (see benchlab export trials --help)')} |\n"
        for c in trials.columns) + "\nDropped before release: " + (", ".join(sorted(drop + leaking)) or "none")
        + " (platform ids, time stamps, file paths, free text, anything holding an original id).\n")
    put("tables/summary.csv", summary_table(trials).to_csv(index=False))
    extra = {name: _rekey(frame.to_csv(index=False), keys) for name, frame in (tables or {}).items()}
    for name, text in extra.items():
        put(f"tables/{name}.csv", text)
    put("REPRODUCE.md", "# Rebuilding the tables\n\n```bash\npip install benchlab\n"
        "python -m benchlab.annotations.release.tables trials.csv > summary.csv\n"
        "diff summary.csv tables/summary.csv   # the same numbers\n```\n\nThe report's comparison tables were made "
        f"with `benchlab compare {data.benchmark}` on the original results files (ids re-keyed in report.md)"
        + "".join(f"; so was `tables/{n}.csv` (`benchlab compare {data.benchmark} ... --only {n} --format csv`)"
                  for n in extra) + ".\n")
    if hashes:
        put("materials/items.csv", "item,sha256_of_text\n" + "".join(f"{k},{v}\n" for k, v in sorted(hashes.items())))
    else:
        put("materials/items.csv", "item\n" + "".join(f"{i}\n" for i in sorted(map(str, trials["item"].dropna()
                                                                                     .unique()))))
    if data.study is not None:
        for name in ["study.toml", *(str(data.study.spec.options.get(k)) for k in ("consent_file",
                                                                                   "instructions_file")
                                     if data.study.spec.options.get(k))]:
            source = data.study.folder / name
            if source.is_file():
                target = out / "materials" / Path(name).name
                shutil.copyfile(source, target)
                written.append(target)
        if not data.study.spec.options.get("instructions_file"):
            pages = _default_instructions(data)
            if pages:
                put("materials/instructions.md", "\n\n---\n\n".join(pages) + "\n")
    if report_md is not None:
        put("report.md", _rekey(report_md, keys))
    manifest = "".join(f"{_sha(p)}  {p.relative_to(out)}\n" for p in sorted(written))
    atomic_write_text(out / "SHA256SUMS", manifest)
    return [*written, out / "SHA256SUMS"]


def _default_instructions(data: StudyData) -> list[str]:
    """The task's built-in instruction pages as each arm showed them (the study sets no instructions file)."""
    study = data.study
    if study is None:
        return []
    pages: list[str] = []
    for arm in study.spec.arms:
        values = {**study.arm_values(arm.name), "participant": "release"}
        try:
            # deferred: opening options loads the task's session code; only a release with default texts needs it
            from benchlab.annotations.session.opening import session_options

            session, plan = session_options(study.task, values)
            shown = study.task.instructions(plan, session)
        except (BenchlabError, OptionError, OSError, ValueError):  # said in the bundle instead of stopping it
            return [f"(the built-in instructions of {study.task.name} could not be rendered here: see the task)"]
        if len(study.spec.arms) > 1:
            shown = [f"## Arm {arm.name}", *shown]
        pages += [p for p in shown if p not in pages]
    return pages


def _rekey(text: str, keys: dict[str, str]) -> str:
    for original in sorted(keys, key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(original)}(?![A-Za-z0-9])", keys[original], text)
    return text


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
