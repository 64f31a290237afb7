"""Which declared options ``benchlab serve NAME`` passes on to each participant's app, and as which flags.

The click command (:mod:`benchlab.tui.commands.serve`) builds its options from these lists and the server
(:mod:`benchlab.tui.web.serve_main`) turns each participant's file columns into flags with them; both import this
module, so the server never imports the command.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.annotations.options import OptionError, option_infos
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    from benchlab.annotations.task import Task

#: Session options a server decides itself (per participant, or always a web session).
NOT_SERVED = ("participant", "out", "resume", "simulate", "sim_delay")
#: Plan options that clash with ``--participants FILE``; they come from the participants file's columns.
FROM_FILE = ("participants",)


def served_infos(task: Task) -> list[Any]:
    """The declared options ``benchlab serve NAME`` passes on to every participant's app."""
    skip = set(NOT_SERVED) | set(FROM_FILE)
    return [i for m in (task.session_options, task.plan_options) for i in option_infos(m)
            if i.cli and not i.argument and i.name not in skip]


def plan_args(task: Task, values: Mapping[str, Any]) -> list[str]:
    """``values`` (field -> typed value) as the flags of ``benchlab run NAME`` (paths made absolute)."""
    args: list[str] = []
    for info in served_infos(task):
        if info.name not in values or values[info.name] is None:
            continue
        value = values[info.name]
        if info.kind == "bool":
            if info.negate and not value:
                args.append(info.negate)
            elif not info.negate and value:
                args.append(info.flag)
            continue
        for v in (value if info.multiple else (value,)):
            args += [info.flag, str(Path(v).resolve()) if isinstance(v, Path) else str(v)]
    return args


def participant_args(task: Task, options: Mapping[str, str]) -> list[str]:
    """A participant's own plan options (from the participants file's columns) as flags."""
    flags = {i.name: i.flag for m in (task.session_options, task.plan_options) for i in option_infos(m)}
    return [a for name, text in options.items() for a in (flags[name], text)]


def column_names(task: Task) -> list[str]:
    """Plan options a participants file may set per participant (columns named like the field)."""
    return [i.name for i in option_infos(task.plan_options) if i.cli and not i.argument]


def check_participant_options(task: Task, served: Mapping[str, Any], participants: Sequence[tuple[str, Mapping[str,
                              str]]], path: Path | None) -> None:
    """Every participant's options (the served ones with their own columns over them) as their session will check
    them, at start and on ``--add``: a ``condition=xyz`` or ``trials=-3`` row must not start a server whose link
    ends in "The session stopped". The first wrong row is one error naming the file and its line."""
    # deferred: the session engine loads only when a server checks its participants (the command's help page
    # imports this module for NOT_SERVED / FROM_FILE)
    from benchlab.annotations.session.opening import session_options

    lines = _id_lines(path)
    for pid, own in participants:
        try:
            session_options(task, {**served, **own, "participant": pid})
        except OptionError as exc:
            raise BenchlabError(f"participant {pid!r}: {exc}", path, lines.get(pid)) from None


def _id_lines(path: Path | None) -> dict[str, int]:
    """The line each id is on in the participants file (its first field), for error messages."""
    if path is None:
        return {}
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return {}
    return {line.split(",", 1)[0].strip(): n for n, line in enumerate(text.splitlines(), 1) if line.strip()}
