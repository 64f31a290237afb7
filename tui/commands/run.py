"""``benchlab run NAME`` for a task (a participant session, or a simulated one), and ``benchlab timing-check``
(the CLI builder adds them to their groups).

Each ``run`` command is generated from the task's declarations: its session options, its plan options, its
simulated participants. A resumed session warns about typed plan options that differ from the saved plan.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from benchlab.annotations.options import OptionError
from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import open_session
from benchlab.annotations.session.runner import SessionRunner
from benchlab.annotations.simulate import SimulatedParticipant, simulate_session
from benchlab.annotations.study_commands import StudyRunOptions
from benchlab.annotations.task import SessionOptions, Task
from benchlab.tui.commands.declared import flags_of, model_from_click, reworded, typed_on_command_line
from benchlab.tui.commands.task_pages import run_page


def _same(given: Any, planned: Any) -> bool:
    if isinstance(given, Path) or isinstance(planned, Path):
        return Path(str(given)).resolve() == Path(str(planned)).resolve()
    if isinstance(given, float) or isinstance(planned, float):
        return given is not None and planned is not None and float(given) == float(planned)
    if isinstance(given, list | tuple) and isinstance(planned, list | tuple):
        return tuple(given) == tuple(planned)
    return bool(given == planned)


def _shown(value: Any) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, list | tuple) else str(value)


def warn_ignored_on_resume(runner: SessionRunner, task: Task, given: Mapping[str, Any]) -> None:
    """A resumed session replays its saved plan: say (one stderr line) which typed options differ and are ignored.

    ``given``: the options typed on the command line (field name -> value); the saved values come from
    ``task.planned_values``, the flags from the task's declarations.
    """
    if not runner.resume:
        return
    saved = task.planned_values(runner.plan)
    flags = flags_of(task.session_options, task.plan_options)
    differ = [f"{flags[name]} {_shown(given[name])} (plan: {_shown(saved[name])})" for name in given
              if name in saved and not _same(given[name], saved[name])]
    if differ:
        click.echo(f"benchlab: warning: --resume replays the saved plan {runner.files.plan}; these options differ "
                   f"from it and are ignored: {', '.join(differ)}", err=True)


def run_session(task: Task, session: SessionOptions, plan: Any, *, given: Mapping[str, Any] | None = None,
                on_prepared: Callable[[SessionRunner], None] | None = None) -> None:
    """Prepare the session, run it (app or simulation) and print where the results are and how many were recorded.

    ``given``: the plan options typed on the command line (warned about on resume when they differ from the plan);
    ``on_prepared``: called once the runner holds the session (a study records its assignment there).
    """
    if session.web_session and not session.simulate:
        # deferred: Textual loads only when the app starts (`benchlab --help` stays quick)
        from benchlab.tui.web.run import run_web_session

        try:
            run_web_session(task, session, plan, on_prepared=on_prepared)
        except OptionError as exc:
            raise reworded(exc, task.session_options, task.plan_options) from None
        return
    try:
        runner = open_session(task, session, plan)
    except OptionError as exc:
        raise reworded(exc, task.session_options, task.plan_options) from None
    if runner.resume_note:
        click.echo(f"benchlab: note: {runner.resume_note}", err=True)
    if given:
        warn_ignored_on_resume(runner, task, given)
    if on_prepared is not None:
        try:
            on_prepared(runner)
        except BaseException:
            runner.close()
            raise
    try:
        if session.simulate:
            participant = SimulatedParticipant(session.simulate, seed=runner.plan.seed)
            try:
                simulate_session(runner, participant, delay_s=session.sim_delay)
            except KeyboardInterrupt:
                runner.abort()
                click.echo(runner.summary())
                raise
            click.echo(runner.summary())
            return
        # deferred: Textual loads only when the app starts (`benchlab --help` stays quick)
        from benchlab.tui.app import BenchlabApp

        app = BenchlabApp(session=(runner, task))
        app.run()
        for summary in app.summaries or [runner.summary()]:
            click.echo(summary)
        if app.error is not None:
            raise app.error
    finally:
        runner.close()


def run_study(opts: StudyRunOptions) -> None:
    """``benchlab run --study DIR --participant P``: the study's benchmark and options, the participant's arm."""
    # deferred: loaded only when the command runs (`benchlab --help` imports every command module)
    from benchlab.annotations.study import load_study

    if not opts.participant:
        raise OptionError("participant", "is needed with {study}: who is this session for?")
    study = load_study(opts.study or Path("."), registry())
    changed = study.changed_since_start()
    if changed:
        click.echo(f"benchlab: warning: {changed}", err=True)
    if opts.simulate and opts.simulate not in study.task.simulated_policies:
        raise OptionError("simulate", f"must be one of {', '.join(study.task.simulated_policies)}")
    assignment = study.assign(opts.participant, opts.session, resume=opts.resume, simulate=opts.simulate,
                              sim_delay=opts.sim_delay)
    how = "as assigned before" if not assignment.new else f"by the {study.spec.assignment.rule} rule"
    click.echo(f"{study.spec.title}: participant {assignment.participant}, session {assignment.session}, arm "
               f"{assignment.arm} ({how})", err=True)
    run_session(study.task, assignment.session_options, assignment.plan_options,
                on_prepared=lambda runner: study.record(assignment, runner.files.plan))


def run_command(task: Task) -> click.Command:
    """``benchlab run <task.name>``: the task's session and plan options as flags, ``--simulate`` with its
    simulated participants."""

    def callback(**params: Any) -> None:
        session = model_from_click(task.session_options, params)
        plan = model_from_click(task.plan_options, params)
        ctx = click.get_current_context()
        given = {name: params[name] for name in typed_on_command_line(ctx, params)}
        run_session(task, session, plan, given=given)

    return run_page(task, callback)
