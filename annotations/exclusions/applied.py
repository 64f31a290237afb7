"""Exclusions as every analysis command applies them: the declared rules of the study the results belong to, plus
``--exclude`` rules given on the command line (labelled exploratory), through :func:`exclusion_log`.

``compare``, ``export trials``, the Results screen and ``benchlab report`` call :func:`exclusions_for`, so the
same people are left out everywhere, for the same logged reasons.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from benchlab.annotations.exclusions.evaluate import ExclusionLog
from benchlab.annotations.exclusions.rules import parse_cli_rule

STUDY_FILE = "study.toml"

#: Set by :func:`forced_exclusions`: (forced, log) so a caller (the report's robustness table) can run a task's own
#: comparison builder with and without the exclusions, through the same builder the Results screen uses.
_FORCED: ContextVar[tuple[bool, ExclusionLog | None]] = ContextVar("benchlab_forced_exclusions",
                                                                   default=(False, None))


@contextmanager
def forced_exclusions(log: ExclusionLog | None) -> Iterator[None]:
    """Within the block, :func:`exclusions_for` answers ``log`` (None: nobody excluded) without reading files."""
    token = _FORCED.set((True, log))
    try:
        yield
    finally:
        _FORCED.reset(token)


def study_folder_of(paths: Sequence[Path]) -> Path | None:
    """The study folder the results ``paths`` belong to (a ``study.toml`` at, or one or two levels above, a path)."""
    for raw in paths:
        path = Path(raw).expanduser().resolve()
        for folder in (path, path.parent, path.parent.parent):
            if (folder / STUDY_FILE).is_file():
                return folder
    return None


def exclusions_for(paths: Sequence[Path], cli_rules: Sequence[str] = ()) -> ExclusionLog | None:
    """The exclusion log for the results ``paths``: None when no study declares rules and none were given (then
    nothing is read and nobody is excluded)."""
    forced, log = _FORCED.get()
    if forced:
        return log
    extra = [parse_cli_rule(text) for text in cli_rules]
    study = study_folder_of(paths)
    if study is None and not extra:
        return None
    # deferred: reading sessions loads pandas and every task's session code; only runs when rules exist
    from benchlab.annotations.exclusions.dataset import load_data
    from benchlab.annotations.registry import registry
    from benchlab.annotations.study import load_study

    if study is not None:
        if not load_study(study, registry()).spec.exclusions and not extra:
            return None  # a study without rules: nothing more is read, compare behaves as before
        data = load_data([study])
    else:
        data = load_data([p if Path(p).is_dir() else Path(p).parent for p in paths])
    if not data.rules and not extra:
        return None
    return data.exclusions(extra)


def exclusion_notes(log: ExclusionLog | None) -> list[str]:
    """Lines for a comparison's notes: each rule (declared or exploratory) and whom it excluded, with figures."""
    if log is None:
        return []
    lines = []
    for rule in log.rules:
        who = [e for e in log.entries if e.rule == rule.kind]
        people = "; ".join(f"{e.participant} ({e.figure}, threshold {e.threshold})" for e in who) or "nobody"
        lines.append(f"Exclusion {rule.label}: {rule.describe()}: {people}.")
    if log.exploratory:
        lines.append("Exploratory exclusions were chosen on the command line after the data: report them as such.")
    return lines
