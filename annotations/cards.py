"""Command cards: what a group's ``--help`` page needs to know of a command without importing its declaration.

A declaration module (``annotations/<benchmark>/commands.py``) holds a command's options model (pydantic) beside
its help; importing every one of them to list the commands' names costs a quarter of a CPU-second. A card holds
the command's words, its help (at least the first paragraph, all a group's listing shows; a group's whole help)
and, for a command made from a declared :class:`~benchlab.annotations.task.Command`, where that declaration lives.
benchlab's own cards hold each command's whole help, written once: the declaration takes it with :func:`help_of`
(a help with a part made at run time, such as ``export trials``' columns, adds that part after it). Card modules
import nothing but this one, so a declaration may import its cards. Each benchmark, and any plug-in that adds
commands, gives a list of cards through the ``benchlab.cards`` entry-point group, under the same name as its
``benchlab.tasks`` / ``benchlab.tools`` entries (:mod:`benchlab.tui.help_cards` reads them; a plug-in without one
is loaded as before).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: ``command``: a command (or a group whose page the CLI itself prints);
#: ``group``: a group whose commands all have cards (its page lists them); its own options, if any, come from the
#: factory ``where`` names (``run``, ``serve``), else it has only ``--help``;
#: ``created``: a group of the second kind that exists only while a command goes in it (``curate``).
CardKind = Literal["command", "group", "created"]


@dataclass(frozen=True)
class Card:
    """One command or group of ``benchlab``: ``path`` is its words (``"score worldsense"``, ``"booksort"``)."""

    path: str
    help: str
    #: ``module:NAME`` of the declared ``Command`` it is made from, or of the click command itself (its page imports
    #: that module alone); for ``run NAME`` / ``serve NAME``, of the task's face
    #: (:class:`~benchlab.annotations.task_face.TaskFace`); for a group, of a function that makes the group, empty,
    #: with its own options
    where: str | None = None
    kind: CardKind = "command"


def help_of(cards: tuple[Card, ...], path: str) -> str:
    """The help of the card ``path`` in ``cards`` (for a declaration that takes its help from its card)."""
    for card in cards:
        if card.path == path:
            return card.help
    raise KeyError(path)
