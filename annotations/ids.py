"""Participant and session ids: checked once for every task, because they become parts of file names."""

from __future__ import annotations

import re

from benchlab.annotations.options import OptionError

_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]{0,63}")


class IdError(OptionError):
    """A wrong participant or session id. It reads the same on the command line and in the form ("participant id
    'P 1' must be ..."): the quoted value already shows which option is meant."""


def check_id(value: str, what: str) -> str:
    """``value`` if it can name files (a task's results file name may also split on ``___``); ``what`` is the field
    (``participant`` or ``session``)."""
    if not _ID_RE.fullmatch(value):  # fullmatch: '$' would let a trailing newline in
        raise IdError(what, f"{value!r} must be 1-64 letters, digits, '.' or '-' (starting with a letter or digit); "
                      "it becomes part of file names", label=f"{what} id", lead=False)
    return value
