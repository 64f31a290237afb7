"""``benchlab run worldsense`` (a participant session, or a simulated one) and ``benchlab timing-check``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from benchlab.annotations.session_plan import SessionPlan
from benchlab.annotations.session_runner import SessionRunner
from benchlab.annotations.simulate import POLICIES
from benchlab.data.errors import BenchlabError
from benchlab.tui.commands.groups import cli, run
from benchlab.tui.task_registry import SessionRequest, TaskUI

PlanValues = Callable[[SessionPlan], Mapping[str, Any]]


def given_options(names: Mapping[str, str]) -> dict[str, Any]:
    """The options (``param name -> flag``) the user typed on this command line, as ``flag -> value``."""
    ctx = click.get_current_context()
    return {flag: ctx.params[name] for name, flag in names.items()
            if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE}


def _same(given: Any, planned: Any) -> bool:
    if isinstance(given, Path) or isinstance(planned, Path):
        return Path(str(given)).resolve() == Path(str(planned)).resolve()
    if isinstance(given, float) or isinstance(planned, float):
        return given is not None and planned is not None and float(given) == float(planned)
    if isinstance(given, str) and isinstance(planned, list | tuple):
        return tuple(p.strip() for p in given.split(",") if p.strip()) == tuple(planned)
    return bool(given == planned)


def warn_ignored_on_resume(runner: SessionRunner, given: Mapping[str, Any], planned: PlanValues) -> None:
    """A resumed session replays its saved plan: say (one stderr line) which typed options differ and are ignored."""
    if not runner.resume:
        return
    saved = planned(runner.plan)
    differ = [f"{flag} {given[flag]} (plan: {saved[flag]})" for flag in given
              if flag in saved and not _same(given[flag], saved[flag])]
    if differ:
        click.echo(f"benchlab: warning: --resume replays the saved plan {runner.files.plan}; these options differ "
                   f"from it and are ignored: {', '.join(differ)}", err=True)


def run_session(task_ui: TaskUI, request: SessionRequest, *, sim_delay: float = 0.0,
                given: Mapping[str, Any] | None = None, planned: PlanValues | None = None) -> None:
    """Prepare the session, run it (app or simulation) and print where the results are and how many were recorded.

    ``given``/``planned``: the typed plan options and how to read them from a saved plan (warned about on resume).
    """
    runner = task_ui.prepare(request)
    if given and planned is not None:
        warn_ignored_on_resume(runner, given, planned)
    try:
        if request.simulated:
            from benchlab.annotations.simulate import SimulatedParticipant, simulate_session

            seed = runner.plan.seed
            try:
                simulate_session(runner, SimulatedParticipant(request.simulated, seed=seed), delay_s=sim_delay)
            except KeyboardInterrupt:
                runner.abort()
                click.echo(runner.summary())
                raise
            click.echo(runner.summary())
            return
        from benchlab.tui.app import BenchlabApp

        app = BenchlabApp(session=(runner, task_ui))
        app.run()
        for summary in app.summaries or [runner.summary()]:
            click.echo(summary)
        if app.error is not None:
            raise app.error
    finally:
        runner.close()


@run.command("worldsense")
@click.option("-t", "--testset", "dataset", type=click.Path(path_type=Path), default=None,
              help="Test-set folder (or trials file). Default: the bundled sample.")
@click.option("--participant", required=True, help="Participant id (letters, digits, '.', '-'); names the results.")
@click.option("--session", default="1", show_default=True, help="Session id of this participant.")
@click.option("--tuples-per-cell", type=int, default=2, show_default=True,
              help="Whole tuples sampled in each (problem, size) cell (at least 2, so every cell has a CI).")
@click.option("--participants", default="",
              help="Comma-separated participant list: tuples are split between them so that a lab covers more items.")
@click.option("--seed", type=int, default=None, help="Plan seed (default: random; it is saved with the plan).")
@click.option("--practice", type=int, default=4, show_default=True, help="Practice trials (outside the scored set).")
@click.option("--block-size", type=int, default=30, show_default=True, help="Trials per block; a break between blocks.")
@click.option("--min-gap", type=int, default=1, show_default=True,
              help="Minimum number of other trials between two items of the same tuple.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Output folder (default: ./benchlab-results/worldsense/<test set name>).")
@click.option("--resume", is_flag=True, help="Continue an interrupted session at its next unanswered trial.")
@click.option("--simulate", type=click.Choice(POLICIES), default=None,
              help="Run a simulated participant through the same engine and files (pilot a design).")
@click.option("--sim-delay", type=float, default=0.0, help="Seconds a simulated participant waits per trial.")
@click.option("--consent", "consent_file", type=click.Path(path_type=Path), default=None,
              help="Consent text (markdown) shown first; declining ends with nothing recorded.")
@click.option("--instructions", "instructions_file", type=click.Path(path_type=Path), default=None,
              help="Instructions (markdown, pages separated by a line '---'). Default: built-in instructions.")
@click.option("--no-instructions", is_flag=True, help="Skip the instruction pages.")
@click.option("--no-feedback", is_flag=True, help="No correct/incorrect feedback after practice trials.")
def run_worldsense(
    dataset: Path | None, participant: str, session: str, tuples_per_cell: int, participants: str, seed: int | None,
    practice: int, block_size: int, min_gap: int, out: Path | None, resume: bool, simulate: str | None,
    sim_delay: float, consent_file: Path | None, instructions_file: Path | None, no_instructions: bool,
    no_feedback: bool,
) -> None:
    """Run a WorldSense session for one participant (kiosk mode; experimenter menu: Ctrl+X then Ctrl+E).

    Responses go to OUT/results/basic___human-<participant>___results.jsonl in the benchmark's results format.
    """
    from benchlab.tui import launcher_entries as _entries  # noqa: F401  (registers the tasks)
    from benchlab.tui.task_registry import TASKS

    task_ui = TASKS["worldsense"]
    data = str(dataset) if dataset is not None else str(task_ui.default_dataset())
    request = SessionRequest(
        dataset=data, participant=participant, session=session, out=str(out) if out else "", seed=seed,
        practice=practice, block_size=block_size, items_per_cell=tuples_per_cell, min_gap=min_gap,
        participants=tuple(p.strip() for p in participants.split(",") if p.strip()), resume=resume,
        consent_file=str(consent_file) if consent_file else None,
        instructions_file=str(instructions_file) if instructions_file else None, no_instructions=no_instructions,
        practice_feedback=not no_feedback, simulated=simulate,
    )
    if sim_delay < 0:
        raise BenchlabError("--sim-delay cannot be negative")
    given = given_options({"dataset": "--testset", "tuples_per_cell": "--tuples-per-cell", "seed": "--seed",
                           "practice": "--practice", "block_size": "--block-size", "min_gap": "--min-gap",
                           "participants": "--participants"})
    run_session(task_ui, request, sim_delay=sim_delay, given=given, planned=_worldsense_plan_values)


def _worldsense_plan_values(plan: SessionPlan) -> dict[str, Any]:
    c = plan.config
    return {"--testset": Path(plan.dataset), "--seed": plan.seed, "--tuples-per-cell": c.get("tuples_per_cell"),
            "--practice": c.get("practice", len(plan.practice)), "--block-size": c.get("block_size"),
            "--min-gap": c.get("min_gap"), "--participants": c.get("participants", [])}


@cli.command("timing-check")
@click.option("--trials", type=int, default=60, show_default=True, help="Scripted key presses to send.")
@click.option("--min-delay", type=float, default=0.3, show_default=True, help="Shortest scripted RT (seconds).")
@click.option("--max-delay", type=float, default=0.8, show_default=True, help="Longest scripted RT (seconds).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the scripted RTs.")
@click.option("--keep", type=click.Path(path_type=Path), default=None, help="Keep the session files in this folder.")
@click.option("-t", "--testset", type=click.Path(path_type=Path), default=None,
              help="WorldSense test set whose questions are shown (default: the bundled sample).")
def timing_check(trials: int, min_delay: float, max_delay: float, seed: int, keep: Path | None,
                 testset: Path | None) -> None:
    """Measure response-time and onset accuracy of the trial screen in a pseudo-terminal (prints figures)."""
    from benchlab.tui.timing_check import run_timing_check

    click.echo(run_timing_check(n_trials=trials, min_delay=min_delay, max_delay=max_delay, seed=seed, keep=keep,
                                testset=str(testset) if testset else None))
