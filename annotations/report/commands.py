"""The top-level commands of the report slice, declared once: ``benchlab report``, ``benchlab withdraw``,
``benchlab release`` (``benchlab.tui.cli.build_cli`` adds them; their modules load only when one runs)."""

from __future__ import annotations

from benchlab.annotations.release.command import RELEASE
from benchlab.annotations.report.command import REPORT
from benchlab.annotations.withdraw import WITHDRAW

TOP_COMMANDS = (REPORT, WITHDRAW, RELEASE)
