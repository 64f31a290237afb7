"""What the plug-in groups gave, for the three places that show it: ``benchlab plugins``, the one-line warning of
``benchlab --help`` and of the launcher, and the reason given for a command word that a broken plug-in would
have added (``benchlab run oddword``).

Loading a group is the job of its consumer (the task registry, the trial screens, the tools); this module only
asks each of them once and reads what :func:`benchlab.annotations.plugins.reports` then holds.
"""

from __future__ import annotations

from benchlab.annotations.plugins import Broken, GroupReport, reports
from benchlab.annotations.registry import registry
from benchlab.tui.tools import tool_report

#: The groups, in the order ``benchlab plugins`` lists them.
GROUPS = ("benchlab.tasks", "benchlab.trial_screens", "benchlab.web_trials", "benchlab.tools")


def plugin_reports() -> list[GroupReport]:
    """Every group's report, each group loaded once per process, in :data:`GROUPS` order."""
    # deferred: the trial screens' module loads Textual, which a command that never shows this report (and
    # `benchlab --version`) does without
    from benchlab.tui.trial_screens import trial_screen_report
    from benchlab.tui.web.web_trials import web_trial_report

    registry()
    trial_screen_report()
    web_trial_report()
    tool_report()
    by_group = {report.group: report for report in reports()}
    return [by_group[group] for group in GROUPS if group in by_group]


def broken_entries() -> list[Broken]:
    """Every entry of every group that did not load (or was refused), with its reason. benchlab's own trial screens
    are not loaded for this (see :func:`~benchlab.tui.trial_screens.plugin_problems`): the warning of ``benchlab
    --help`` costs no Textual when no plug-in is installed."""
    # deferred: the trial screens' module is light, but only this report and the app need it
    from benchlab.tui.trial_screens import plugin_problems

    registry()
    tool_report()
    by_group = {report.group: report.broken for report in reports()}
    by_group["benchlab.trial_screens"] = plugin_problems()
    return [broken for group in GROUPS for broken in by_group.get(group, [])]


def _named(broken: Broken) -> str:
    return f"{broken.entry.name} ({broken.entry.package}): {broken.reason}"


def warning_line() -> str | None:
    """``warning: 1 plug-in failed to load: oddword (benchlab-oddword): SyntaxError ...; see benchlab plugins``,
    or ``None`` when everything loaded."""
    broken = broken_entries()
    if not broken:
        return None
    count = f"{len(broken)} plug-in{'s' if len(broken) > 1 else ''} failed"
    return f"warning: {count} to load: {'; '.join(_named(b) for b in broken)}; see benchlab plugins"


def broken_named(name: str) -> Broken | None:
    """The broken entry whose entry-point name is ``name`` (the word the plug-in would have added), if any."""
    return next((b for b in broken_entries() if b.entry.name == name), None)


def why_missing(name: str) -> str | None:
    """The one line for a command word that only a broken plug-in would have given (``None`` for other words)."""
    broken = broken_named(name)
    if broken is None:
        return None
    return f"{name!r} comes from a plug-in that failed to load: {_named(broken)} (see benchlab plugins)"
