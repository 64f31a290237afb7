"""``benchlab study init|show`` and the options of ``benchlab run --study``, declared once (the launcher's Open
study screen reads the same declaration)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from benchlab.annotations.cards import help_of
from benchlab.annotations.core_cards import CARDS
from benchlab.annotations.online.commands import commands as online_commands
from benchlab.annotations.online.commands import online_summary
from benchlab.annotations.options import Options, option
from benchlab.annotations.registry import registry
from benchlab.annotations.task import Command, ToolGroup
from benchlab.data.errors import BenchlabError

STUDY = ToolGroup("study", help_of(CARDS, "study"))


class StudyInitOptions(Options):
    folder: Path = option(label="Study folder", argument=True, help="Folder to create the study in.")
    benchmark: str | None = option(None, label="Benchmark", help="Benchmark the study runs (a registered task "
                                   "name; default: the first the launcher lists, named in the output).")
    online: bool = option(False, label="Online section", help="Add a commented [online] section (crowd link, "
                          "quotas, completion codes; see docs/online.md).")


def init(opts: StudyInitOptions) -> str:
    # deferred: loaded only when the command runs (`benchlab --help` imports every command module)
    from benchlab.annotations.study import init_study

    tasks = registry()
    task = next(iter(tasks), None) if opts.benchmark is None else tasks.get(opts.benchmark)
    if task is None:
        raise BenchlabError("no installed benchmark runs sessions: install one, then study init again")
    written = init_study(opts.folder, task, online=opts.online)
    chosen = [] if opts.benchmark is not None else [
        f"benchmark: {task.name} (the first installed; --benchmark NAME for another: {', '.join(tasks.tasks)})"]
    return "\n".join([*chosen, *(f"wrote {path}" for path in written),
                      f"edit {written[0]}, then: benchlab run --study {opts.folder} --participant P01"])


class StudyShowOptions(Options):
    folder: Path = option(label="Study folder", argument=True, help="The study folder (holding study.toml).")


def show(opts: StudyShowOptions) -> str:
    """The study as checked (each arm planned once against its data), its arms with how many participants each
    has, and a changed-file warning."""
    # deferred: loaded only when the command runs (`benchlab --help` imports every command module)
    from benchlab.annotations.study import load_study

    study = load_study(opts.folder, registry())
    records = study.assignments()
    pilots = [r for r in records if r.get("simulated")]
    records = [r for r in records if not r.get("simulated")]
    first: dict[str, str] = {}
    for record in records:
        first.setdefault(record["participant"], str(record["arm"]))
    people = Counter(first.values())
    sessions = Counter(str(r["arm"]) for r in records)
    lines = [f"{study.spec.title}: {study.task.title}, assignment {study.spec.assignment.rule}, results in "
             f"{study.out}", f"study file sha256 {study.sha256[:12]}"]
    for arm in study.spec.arms:
        settings = ", ".join(f"{k}={v}" for k, v in arm.options.items()) or "shared options only"
        practice, scored = study.dry_run(arm.name)  # the arm fits its data (else one line naming the study file)
        lines.append(f"  arm {arm.name}: {settings}; plans {scored} scored + {practice} practice trials; "
                     f"{people[arm.name]} participant"
                     f"{'s' if people[arm.name] != 1 else ''}, {sessions[arm.name]} session"
                     f"{'s' if sessions[arm.name] != 1 else ''}")
    if pilots:
        lines.append(f"  and {len(pilots)} simulated pilot session{'s' if len(pilots) != 1 else ''} (not counted)")
    if study.spec.online is not None:
        lines.append(online_summary(study))
    changed = study.changed_since_start()
    if changed:
        lines.append(f"warning: {changed}")
    return "\n".join(lines)


class StudyRunOptions(Options):
    """``benchlab run --study DIR --participant P05``: everything else comes from the study file."""

    study: Path | None = option(None, label="Study folder", widget="folder",
                                help="Run a session of this study (its benchmark, options and arms; "
                                "benchlab study init makes one).")
    participant: str | None = option(None, label="Participant id",
                                     help="Who this session is for (letters, digits, '.', '-').")
    session: str = option("1", label="Session", help="Session id of this participant.")
    resume: bool = option(False, label="Resume an interrupted session",
                          help="Continue this participant's interrupted session of the study.")
    simulate: str | None = option(None, label="Simulated participant", form=False,
                                  help="Pilot the study with a simulated participant (e.g. oracle, random); "
                                  "recorded as a pilot, never pooled with people.")
    sim_delay: float = option(0.0, label="Simulated seconds per trial", ge=0, form=False,
                              help="Seconds a simulated participant waits per trial.")


#: named, so that their help pages come from their cards (``annotations/core_cards.py``) with this module alone
INIT = Command("tool", help_of(CARDS, "study init"), StudyInitOptions, init, name="init", tool=STUDY)
SHOW = Command("tool", help_of(CARDS, "study show"), StudyShowOptions, show, name="show", tool=STUDY)
COMMANDS = (INIT, SHOW, *online_commands(STUDY))
