"""``benchlab ... --help`` from the command cards (:mod:`benchlab.annotations.cards`) when neither the help cache
nor the help listing can answer: the first help page after an install, or after an edit of a file the CLI imports.

A group's page (``benchlab --help``, ``benchlab score --help``) is laid out by click from stand-ins: the root as
:mod:`benchlab.tui.commands.root` makes it, the group with its card's help, one command per card below it. A
declared command's own page (``benchlab score worldsense --help``) imports the one module its card names and makes
the command from that declaration, as the whole CLI would; a task's ``run NAME`` / ``serve NAME`` page is made from
the task's face (:class:`~benchlab.annotations.task_face.TaskFace`) its card names, by the functions that make the
CLI's commands (:mod:`benchlab.tui.commands.task_pages`), without loading the task. Either way the page is click's
own layout of the same texts (tests/test_help_cards.py compares every page of the tree with the live CLI's).

The cards are the built-in ones (:mod:`benchlab.tui.core_cards`) and those of the ``benchlab.cards`` entry-point
group. They are used only while every entry of ``benchlab.tasks`` and ``benchlab.tools`` has a ``benchlab.cards``
entry of the same name from the same distribution: a plug-in that gives none is known only by loading it, so the
whole CLI answers. The root page is never laid out from cards while a plug-in is installed (its last line may be
a broken plug-in's warning, which must come from a live load). Anything unexpected (a damaged card module, two
cards for one command, a declaration that fails to import) also leaves the page to the whole CLI.
"""

from __future__ import annotations

import contextlib
import importlib
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchlab.annotations.cards import Card
from benchlab.annotations.task_face import TaskFace
from benchlab.tui.core_cards import CARDS as CORE_CARDS
from benchlab.tui.help_cache import entry_point_lines, plugin_packages
from benchlab.tui.help_listing import record_page

if TYPE_CHECKING:
    import click

#: The entry-point group of card lists (``name = "package.module:CARDS"``, a tuple of :class:`Card`).
CARDS_GROUP = "benchlab.cards"
#: The groups whose entries add commands: each needs a card entry for the cards to be complete.
COMMAND_GROUPS = ("benchlab.tasks", "benchlab.tools")


def _entries() -> list[tuple[str, str, str, str]]:
    """(group, name, ``module:attr``, distribution and version) of every ``benchlab.*`` entry point."""
    rows = []
    for line in entry_point_lines():
        group, name, value, dist = line.removeprefix("ep ").rstrip("\n").split("\0")
        rows.append((group, name, value, dist))
    return rows


def all_cards() -> dict[str, Card] | None:
    """Every card by its path, or ``None`` when some command source gives no cards (or they cannot be read)."""
    try:
        entries = _entries()
        given = {(name, dist): value for group, name, value, dist in entries if group == CARDS_GROUP}
        if any((name, dist) not in given for group, name, _, dist in entries if group in COMMAND_GROUPS):
            return None
        cards = list(CORE_CARDS)
        for value in given.values():
            module, _, attr = value.partition(":")
            cards.extend(getattr(importlib.import_module(module), attr))
        by_path: dict[str, Card] = {}
        for card in cards:
            if not isinstance(card, Card) or card.path in by_path:
                return None
            by_path[card.path] = card
        return by_path
    except Exception:  # deliberately broad: a card module that fails leaves the page to the whole CLI
        return None


def _below(cards: dict[str, Card], path: str) -> list[Card]:
    """The cards one word below ``path`` (``""``: the top level); a created group only while a card is below it."""
    depth = len(path.split()) + 1
    found = [c for p, c in cards.items() if len(p.split()) == depth and (not path or p.startswith(f"{path} "))]
    return [c for c in found if c.kind != "created" or _below(cards, c.path)]


def _listing(group: click.Group, cards: dict[str, Card], path: str) -> click.Group:
    """``group`` holding a stand-in command (name and help) for each card below ``path``."""
    import click  # deferred: click loads only when a page is laid out

    for card in _below(cards, path):
        group.add_command(click.Command(card.path.split()[-1], help=card.help, add_help_option=False))
    return group


def _made(where: str) -> object:
    """The object ``module:NAME`` names (its module imported now)."""
    module, _, attr = where.partition(":")
    return getattr(importlib.import_module(module), attr)


def _group(card: Card) -> click.Group:
    """The group of ``card``, empty: made by its factory (a group with options of its own), else a plain one."""
    import click  # deferred: see _listing

    if card.where is None:
        return click.Group(card.path, help=card.help)
    factory = _made(card.where)
    made = factory() if callable(factory) else None
    if not isinstance(made, click.Group):
        raise TypeError(f"{card.where} made no group")
    return made


def carded_root(argv: Sequence[str], cards: dict[str, Card]) -> click.Group | None:
    """A root that prints the page ``argv`` (``[WORD ...] --help``) asks for, or ``None`` when cards cannot."""
    import click  # deferred: see _listing

    from benchlab.tui.commands.root import root_group  # deferred: the root is made with click (see _listing)

    words = list(argv[:-1])
    if not words:
        return None if plugin_packages() else _listing(root_group(), cards, "")
    top = cards.get(words[0])
    if top is None or len(words) > 2:
        return None
    root = root_group()
    leaf = cards.get(" ".join(words))
    if len(words) == 1 and top.kind != "command":
        root.add_command(_listing(_group(top), cards, words[0]))
        return root
    if leaf is None or leaf.where is None:
        return None
    made = _made(leaf.where)
    if isinstance(made, TaskFace):  # ``run NAME`` / ``serve NAME``: from the task's face, without the task itself
        # deferred: click's parameters are made only when a page is laid out (see _listing)
        from benchlab.tui.commands.task_pages import TASK_PAGES

        if len(words) != 2 or words[0] not in TASK_PAGES:
            return None
        made = TASK_PAGES[words[0]](made)
    if not isinstance(made, click.Command) and callable(made):  # a factory (``power NAME``: from its planning)
        made = made()
    if isinstance(made, click.Command):  # a command made with click (demo, plugins ...): its module alone
        command = made
    else:
        # deferred: pydantic and the one declaration load only for a declared command's own page
        from benchlab.tui.commands.declared import command_from

        command = command_from(made, words[-1])  # type: ignore[arg-type]
    if len(words) == 1:
        root.add_command(command)
    else:
        root.add_command(click.Group(words[0], help=top.help, commands=[command]))
    return root


def carded_help(argv: Sequence[str]) -> str | None:
    """The page ``argv`` asks for, laid out from the cards, or ``None`` when the whole CLI must answer."""
    cards = all_cards()
    if cards is None:
        return None
    out, err = io.StringIO(), io.StringIO()
    try:
        root = carded_root(argv, cards)
        if root is None:
            return None
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = root.main(args=list(argv), prog_name="benchlab", standalone_mode=False)
    except Exception:  # deliberately broad: a declaration that fails to import is reported by the whole CLI
        return None
    if code not in (0, None) or err.getvalue() or not out.getvalue():
        return None
    words = list(argv[:-1])
    if words and cards[" ".join(words)].where is not None:  # a command's page: kept while the files it loaded are
        record_page(root, words)
    return out.getvalue()
