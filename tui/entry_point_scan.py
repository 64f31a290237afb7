"""The ``benchlab.*`` entry points of the installed distributions, read from their ``entry_points.txt`` files
directly: what :func:`importlib.metadata.entry_points` finds, without importing ``importlib.metadata`` (~30 ms of
CPU on every help page: it imports ``email``, ``zipfile``, ``csv`` ...).

The help cache and the command cards must see every plug-in (:mod:`benchlab.tui.help_cache`), so this scan must
agree with ``importlib.metadata``, the way benchlab loads plug-ins (:mod:`benchlab.annotations.plugins`). It follows
the same rules as Python 3.11's ``importlib.metadata``: the folders of ``sys.path`` in order, in each folder the
``*.dist-info`` and ``*.egg-info`` entries in directory order grouped by normalized name, the first distribution of
a normalized name wins, ``entry_points.txt`` read as ``[group]`` sections of ``name = value`` lines. Whenever the
installation is of a kind these rules do not cover, :func:`scan` returns ``None`` and the caller asks
``importlib.metadata``: a finder on ``sys.meta_path`` other than the standard path finder that can find
distributions, a ``sys.path`` entry that exists but is not a folder (a zip file), an ``.egg`` folder, or an entry
point whose value is not ``module[:attr]``.
"""

from __future__ import annotations

import importlib.machinery
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

#: What ``importlib.metadata.EntryPoint`` accepts as a value (module, optional ``:attr``, optional extras).
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


@dataclass(frozen=True)
class Found:
    """One entry point: its group, name, value, top-level module and distribution (``NAME VERSION``)."""

    group: str
    name: str
    value: str
    module: str
    dist: str


class Unusual(Exception):
    """The installation is of a kind this scan does not read like ``importlib.metadata``: ask it instead."""


def _normalize(name: str) -> str:
    """PEP 503 normalization plus dashes as underscores (``importlib.metadata.Prepared.normalize``)."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _read(folder: str, name: str) -> str | None:
    """A metadata file of a distribution folder, ``None`` where it is missing (as ``Distribution.read_text``)."""
    try:
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            return handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return None


def _distributions(path: Sequence[str]) -> Iterator[str]:
    """The metadata folders of the distributions on ``path``, each normalized name once (the first wins)."""
    seen: set[str] = set()
    for entry in path:
        root = entry or "."
        if os.path.basename(entry).lower().endswith(".egg"):
            raise Unusual(entry)
        try:
            children = os.listdir(root)
        except OSError:
            if os.path.exists(root):
                raise Unusual(entry) from None  # a zip file, or a folder that cannot be listed
            continue
        infos: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                infos.setdefault(_normalize(low.rpartition(".")[0].partition("-")[0]), []).append(child)
        for group in infos.values():
            for child in group:
                stem, ext = os.path.splitext(child)
                if ext not in (".dist-info", ".egg-info"):
                    raise Unusual(child)  # importlib.metadata reads such a name from the metadata file instead
                key = _normalize(stem.partition("-")[0])
                if key not in seen:
                    seen.add(key)
                    yield os.path.join(entry, child) if entry else child


def _label(folder: str) -> str:
    """``NAME VERSION`` of the distribution whose metadata is in ``folder``."""
    return metadata_label(_read(folder, "METADATA") or _read(folder, "PKG-INFO") or "")


def metadata_label(text: str) -> str:
    """``NAME VERSION`` from the head of a metadata file (``?`` for a missing field): what ``dist.name`` and
    ``dist.version`` say, without parsing the whole file as an e-mail message."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line:
            break  # the headers end at the first blank line
        key, sep, value = line.partition(":")
        if sep and key in ("Name", "Version"):
            fields.setdefault(key, value.strip())
    return f"{fields.get('Name', '?')} {fields.get('Version', '?')}"


def _entries(folder: str, prefix: str) -> Iterator[Found]:
    """The entry points of one distribution in groups starting with ``prefix``, in file order."""
    text = _read(folder, "entry_points.txt")
    if not text:
        return
    group: str | None = None
    label: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line.strip("[]")
            continue
        if group is None or not group.startswith(prefix):
            continue
        name, sep, value = line.partition("=")
        match = _VALUE.match(value.strip())
        if not sep or match is None:
            raise Unusual(f"{folder}: {line}")
        label = label or _label(folder)
        yield Found(group, name.strip(), value.strip(), match.group("module"), label)


def scan(prefix: str, path: Sequence[str] | None = None) -> list[Found] | None:
    """Every entry point of a group starting with ``prefix``, in distribution order; ``None`` when the
    installation is unusual (see the module docstring) and ``importlib.metadata`` must be asked."""
    if any(getattr(f, "find_distributions", None) is not None and f is not importlib.machinery.PathFinder
           for f in sys.meta_path):
        return None
    try:
        return [found for folder in _distributions(sys.path if path is None else path)
                for found in _entries(folder, prefix)]
    except Unusual:
        return None
