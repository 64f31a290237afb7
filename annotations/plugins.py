"""Plug-ins: one entry-point group per extension kind, all loaded the same way, every failure kept with its reason.

benchlab's own benchmarks are declared in its ``pyproject.toml`` in the same groups a third-party package uses, so
the code that loads them never names a benchmark, and a built-in and a plug-in travel the same path. What failed
to load is not dropped: :class:`GroupReport` keeps each broken entry with a one-line reason, which ``benchlab
plugins``, ``benchlab --help`` and the launcher show.

The groups (their consumers live in the layer that can use what they hold):

- ``benchlab.tasks``: task declarations (:mod:`benchlab.annotations.task`);
- ``benchlab.trial_screens``: terminal screens per trial kind (:mod:`benchlab.tui.trial_screens`);
- ``benchlab.tools``: launcher lines and commands of a benchmark's own front ends (:mod:`benchlab.tui.tools`).
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from types import FunctionType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from importlib.metadata import Distribution, EntryPoint, EntryPoints

#: The distribution whose entry points are the built-ins (listed first, in the order of its ``pyproject.toml``).
BUILTIN_PACKAGE = "benchlab"
#: A name a plug-in may take: it becomes a command word, a folder name and a field value.
NAME_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")


@dataclass(frozen=True)
class Entry:
    """One entry point: where it is declared (group, name, ``module:attribute``) and which package declares it."""

    group: str
    name: str
    value: str
    package: str

    @property
    def builtin(self) -> bool:
        return self.package == BUILTIN_PACKAGE

    def where(self) -> str:
        """``name = module:attr (package)``: how a message names the entry."""
        return f"{self.name} = {self.value} ({self.package})"


@dataclass(frozen=True)
class Broken:
    """An entry that did not load, with the one-line reason a user sees."""

    entry: Entry
    reason: str


@dataclass
class GroupReport:
    """What one group gave: the loaded objects with their entries, and what was broken."""

    group: str
    loaded: list[tuple[Entry, Any]] = field(default_factory=list)
    broken: list[Broken] = field(default_factory=list)

    def refuse(self, entry: Entry, reason: str) -> None:
        """Move ``entry`` from loaded to broken (a consumer's own check failed: bad name, clash ...)."""
        self.loaded = [(e, obj) for e, obj in self.loaded if e != entry]
        self.broken.append(Broken(entry, reason))

    def refuse_clashes(self, what: str, key: Callable[[Entry, Any], str]) -> list[tuple[Entry, Any]]:
        """Keep the first entry of each ``key`` (built-ins load first, so a built-in name is never taken over);
        each later one is refused with a reason naming both packages. Returns the kept ``(entry, object)`` pairs."""
        owners: dict[str, Entry] = {}
        for entry, obj in list(self.loaded):
            name = key(entry, obj)
            if name in owners:
                self.refuse(entry, clash(what, name, owners[name], entry))
            else:
                owners[name] = entry
        return list(self.loaded)


class _Selectable(Protocol):
    """What :func:`importlib.metadata.entry_points` returns (``SelectableGroups`` on Python 3.11)."""

    def select(self, *, group: str) -> EntryPoints: ...


@cache
def _scan_of(path: tuple[str, ...]) -> _Selectable:
    return entry_points()


def entry_points() -> _Selectable:
    """:func:`importlib.metadata.entry_points`, imported when a group is first loaded, not with the declarations that
    import this module (a help page laid out from the command cards loads none)."""
    # deferred: importlib.metadata costs ~30 ms of CPU
    from importlib import metadata

    return metadata.entry_points()


def _scan() -> _Selectable:
    """Every entry point of every installed distribution, read once for all groups while ``sys.path`` stays the
    same (a scan reads every distribution's metadata, a few milliseconds each, on the start-up path of every
    command; a changed ``sys.path`` is a new scan, as for ``importlib.metadata`` itself)."""
    return _scan_of(tuple(sys.path))


def forget_scan() -> None:
    """Read the installed entry points again on next use (tests that install or fake plug-ins in place)."""
    _scan_of.cache_clear()


def _package_name(dist: Distribution | None) -> str:
    name = dist.name if dist is not None else None
    return name or "unknown package"


def one_line(exc: BaseException) -> str:
    """``SyntaxError: invalid syntax (task.py, line 3)``: the type and the first line of the message (a plug-in's
    reason, wherever it failed: loading its entry point, or a factory the front end calls later)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _resolve(obj: object) -> object:
    """An entry point names an object or a function without arguments returning it (a function that takes
    arguments, such as a trial-screen factory, is the object itself)."""
    if isinstance(obj, FunctionType) and not _takes_arguments(obj):
        return obj()
    return obj


def _takes_arguments(function: FunctionType) -> bool:
    return any(p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in inspect.signature(function).parameters.values())


def _declared(group: str) -> list[tuple[Entry, EntryPoint]]:
    """The entry points of ``group`` in load order (built-ins first in their declared order, then plug-ins by name:
    a stable launcher order), each once (a distribution found twice on the path counts once)."""
    packages: dict[int, str] = {}  # one metadata read per distribution
    found: list[tuple[Entry, EntryPoint]] = []
    seen: set[tuple[str, str]] = set()
    for ep in _scan().select(group=group):
        package = packages.setdefault(id(ep.dist), _package_name(ep.dist)) if ep.dist is not None else "unknown package"
        entry = Entry(group, ep.name, ep.value, package)
        if (entry.name, entry.value) not in seen:
            seen.add((entry.name, entry.value))
            found.append((entry, ep))
    builtin = [pair for pair in found if pair[0].builtin]
    others = sorted((pair for pair in found if not pair[0].builtin), key=lambda pair: (pair[0].name, pair[0].value))
    return builtin + others


def declared_entries(group: str) -> list[Entry]:
    """What ``group`` declares, without loading anything (names, values, packages)."""
    return [entry for entry, _ in _declared(group)]


def load_group(group: str, check: Callable[[Entry, Any], str | None] | None = None, *,
               builtins: bool = True) -> GroupReport:
    """Load every entry point of ``group``; ``check`` returns a reason to refuse an object (else ``None``).
    ``builtins=False`` loads only plug-ins' entries (a check for broken plug-ins that must not pay for benchlab's
    own, e.g. its Textual screens at ``benchlab --help``).

    Nothing a plug-in does on import (an exception of any kind, a ``SystemExit``) takes benchlab down: the entry is
    reported broken with a one-line reason instead.
    """
    report = GroupReport(group)
    for entry, ep in _declared(group):
        if entry.builtin and not builtins:
            continue
        try:
            obj = _resolve(ep.load())
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            report.broken.append(Broken(entry, one_line(exc)))
            continue
        reason = check(entry, obj) if check is not None else None
        if reason is not None:
            report.broken.append(Broken(entry, reason))
            continue
        report.loaded.append((entry, obj))
    return report


def name_problem(name: object, what: str) -> str | None:
    """Why ``name`` cannot name a plug-in's ``what`` (``None`` when it can)."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        return (f"{what} name {name!r} is not allowed: lower-case letters, digits and '-', starting with a letter "
                "(it becomes a command word and a folder name)")
    return None


def clash(what: str, name: str, first: Entry, second: Entry) -> str:
    """The reason a second declaration of ``name`` is refused, naming both packages."""
    return (f"{what} name {name!r} is already taken by {first.where()}; {second.package} declares it again "
            "(rename one of them)")


@cache
def _reports() -> dict[str, GroupReport]:
    return {}


def remember(report: GroupReport) -> GroupReport:
    """Keep a group's report for ``benchlab plugins`` and the warnings (one report per group and process)."""
    _reports()[report.group] = report
    return report


def reports() -> list[GroupReport]:
    """The reports of the groups loaded so far in this process."""
    return list(_reports().values())


__all__ = ["BUILTIN_PACKAGE", "Broken", "Entry", "GroupReport", "clash", "declared_entries", "load_group",
           "name_problem", "one_line", "remember", "reports"]
