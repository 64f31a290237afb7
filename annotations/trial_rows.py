"""What a benchmark's trial exporter (:class:`~benchlab.annotations.task.TrialRows`) is made of: its declaration as
plain data, and the helpers every exporter uses to find its files and mark its rows.

Kept apart from the ``export trials`` command (:mod:`benchlab.annotations.trial_export`), which reads the
registry: a benchmark's exporter imports this module only, so loading a task declaration never loads the command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    from benchlab.annotations.task import TrialRows


@dataclass(frozen=True)
class TrialExport:
    """A :class:`~benchlab.annotations.task.TrialRows` as plain data: the notes and the function reading rows."""

    inputs: str
    testset_needed: str | None
    shared_notes: Mapping[str, str]
    columns: Mapping[str, str]
    rows: Callable[[list[Path], Path | None], list[dict[str, Any]]]


def flags_text(*marks: tuple[str, bool]) -> str:
    return ";".join(name for name, on in marks if on)


def session_files(paths: list[Path], patterns: tuple[str, ...]) -> list[Path]:
    """Files matching ``patterns`` under each folder of ``paths`` (and in the ``practice`` folder beside a
    ``results`` folder, where sessions put practice answers), plus the files named directly; sorted, each once."""
    found: list[Path] = []
    for p in paths:
        if p.is_dir():
            roots = [p] + ([p.parent / "practice"] if p.name == "results" else [])
            found += [f for root in roots if root.is_dir() for pat in patterns for f in sorted(root.rglob(pat))
                      if f.is_file()]
        elif p.is_file():
            found.append(p)
        else:
            raise BenchlabError("no such file or folder", p)
    return list(dict.fromkeys(found))


if TYPE_CHECKING:  # mypy checks here that the plain-data form satisfies the protocol the command reads

    def _is_trial_rows(export: TrialExport) -> TrialRows:
        return export


#: The page's own columns of a web session's trials (``benchlab serve``), the same for every benchmark: the
#: response's input kind, the page-side RT and stamps, and the trial's conduct marks. Empty for terminal sessions.
CLIENT_COLUMNS: dict[str, str] = {
    "input": "how the answer was given: key, mouse, touch (web page) or key (terminal)",
    "client_rt_ms": "web page: response event time minus the stimulus onset (first animation frame), page clock (ms)",
    "client_onset_ms": "web page: stimulus onset on the page's performance.now() clock (ms)",
    "client_key_ms": "web page: the response event's own timeStamp on the page's clock (ms)",
    "client_clock_offset_ms": "web page: page clock minus the server's monotonic clock, estimated (ms)",
    "interruptions": "web page: how often the trial was shown again (reload, reconnect, server restart)",
    "hidden_ms": "web page: time the tab was hidden while the trial was on screen (ms)",
    "blurs": "web page: times the window lost focus while the trial was on screen",
    "clipboard_attempts": "web page: blocked copy, cut, paste and context-menu attempts on the trial",
}
_COUNTS = ("interruptions", "blurs", "clipboard_attempts")


def client_values(record: Mapping[str, Any]) -> dict[str, Any]:
    """The :data:`CLIENT_COLUMNS` of one results record (JSON values or CSV text), typed; ``None`` when absent."""
    out: dict[str, Any] = {"input": str(record.get("input") or "")}
    for name in list(CLIENT_COLUMNS)[1:]:
        value = record.get(name)
        if isinstance(value, str):
            value = value.strip()
        try:
            number = None if value in (None, "") or isinstance(value, bool) else float(value)
        except (TypeError, ValueError):
            number = None
        out[name] = int(number) if number is not None and name in _COUNTS else number
    return out
