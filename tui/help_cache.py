"""``benchlab ... --help`` printed from a cache, so asking for help does not import every task declaration.

Listing the commands means building the whole CLI: every declaration module (options models, pydantic) is
imported to read each command's name and help, about 0.3 CPU-seconds. The help text is a pure function of
benchlab's sources, the installed plug-ins, the environment and the terminal width, so it is cached under a
fingerprint of exactly those:

* every ``.py`` file of benchlab's packages (path, size, modification time),
* every entry point of a ``benchlab.*`` group (name, value, distribution and version) and, for a plug-in, every
  ``.py`` file of its top-level package (an editable plug-in's edited source is seen too),
* the distributions and ``.pth`` files installed on ``sys.path`` (a removed dependency breaks a plug-in),
* the interpreter, ``sys.path``, the ``BENCHLAB_*``/``XDG_*``/``COLUMNS`` environment and the terminal width.

A cached text is printed only when its stored fingerprint equals the one computed now; otherwise the real CLI
prints the help and the text is stored, unless a plug-in is broken (its warning line must always come from a live
load) or anything went to stderr. One entry per command path and width (the slot), overwritten when the fingerprint
changes, so the cache does not grow with edits. Nothing here imports click, pydantic or a declaration module.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from benchlab.data.command_replay import environment_digest, package_dirs, stamp_sources, store_json
from benchlab.tui.entry_point_scan import Found, metadata_label, scan

if TYPE_CHECKING:
    from importlib.metadata import Distribution

#: Bump when what is stored changes shape.
CACHE_VERSION = "1"

_BENCHLAB_PACKAGES = ("benchlab.tui", "benchlab.annotations", "benchlab.data")
_HELP_WORDS = ("--help", "-h")


def is_help_request(argv: Sequence[str]) -> bool:
    """``[WORD ...] --help``: command words only, then ``--help`` or ``-h`` (anything else runs the real CLI)."""
    if not argv or argv[-1] not in _HELP_WORDS:
        return False
    return all(word and not word.startswith("-") and "=" not in word for word in argv[:-1])


def safe_fingerprint() -> str | None:
    """:func:`fingerprint`, or ``None`` when it cannot be made (the help is then printed, not cached)."""
    try:
        return fingerprint()
    except Exception:  # deliberately broad: the cache must never stand between a user and the help text
        return None


def fingerprint() -> str:
    """Everything the help text depends on, hashed (see the module docstring)."""
    digest = environment_digest(f"help v{CACHE_VERSION}")
    digest.update(f"width {shutil.get_terminal_size().columns}\n".encode())
    stamp_sources(digest, package_dirs(_BENCHLAB_PACKAGES))
    lines, plugins = _entry_points(tuple(sys.path))
    digest.update("".join(lines).encode())
    stamp_sources(digest, package_dirs(plugins))
    digest.update("".join(installed()).encode())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _entry_points(path: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """One line per entry point of a ``benchlab.*`` group (name, value, distribution and version), and the top-level
    packages of the plug-ins among them; scanned once per process and ``path`` (``sys.path``: the help cache and
    the help listing share one scan; a folder put on the path is scanned again). Read from the distributions'
    ``entry_points.txt`` files (:mod:`benchlab.tui.entry_point_scan`), or through ``importlib.metadata`` where the
    installation is unusual."""
    found = scan("benchlab", path)
    if found is None:
        found = _scanned_by_importlib()
    lines: list[str] = []
    plugins: set[str] = set()
    for group in sorted({f.group for f in found}):
        for ep in sorted((f for f in found if f.group == group), key=lambda e: (e.name, e.value)):
            lines.append(f"ep {group}\0{ep.name}\0{ep.value}\0{ep.dist}\n")
            top = ep.module.split(".")[0]
            if top != "benchlab":
                plugins.add(top)
    return tuple(lines), tuple(sorted(plugins))


def _scanned_by_importlib() -> list[Found]:
    """:func:`benchlab.tui.entry_point_scan.scan`'s answer, from ``importlib.metadata`` (an unusual installation)."""
    # deferred: importlib.metadata (~30 ms) loads only where the direct scan cannot read the installation
    from importlib import metadata

    scan_ = metadata.entry_points()  # one scan of the installed distributions
    labels: dict[int, str] = {}
    return [Found(group, ep.name, ep.value, ep.module,
                  labels.setdefault(id(ep.dist), _label(ep.dist)) if ep.dist is not None else "?")
            for group in scan_.groups if group.startswith("benchlab") for ep in scan_.select(group=group)]


def _label(dist: Distribution) -> str:
    """``NAME VERSION`` of ``dist`` from the head of its metadata file: what ``dist.name`` and ``dist.version`` say,
    without parsing the whole file as an e-mail message twice (~3 ms a distribution)."""
    return metadata_label(dist.read_text("METADATA") or dist.read_text("PKG-INFO") or "")


def entry_point_lines() -> tuple[str, ...]:
    """See :func:`_entry_points`."""
    return _entry_points(tuple(sys.path))[0]


def plugin_packages() -> tuple[str, ...]:
    """The top-level packages of the installed plug-ins (entry points of a ``benchlab.*`` group outside benchlab)."""
    return _entry_points(tuple(sys.path))[1]


def installed() -> list[str]:
    """The distributions and ``.pth`` files on ``sys.path``: a plug-in whose dependency is removed breaks, and its
    warning must then show."""
    lines = []
    for entry in sys.path:
        try:
            names = sorted(n for n in os.listdir(entry or ".") if n.endswith((".dist-info", ".egg-info", ".pth")))
        except OSError:
            continue
        lines.append(f"path {entry}\0{names}\n")
    return lines


def _slot(argv: Sequence[str]) -> Path:
    """The cache file of one command path (``--help`` and ``-h`` share it) at this terminal width."""
    words = [*argv[:-1], "--help", str(shutil.get_terminal_size().columns)]
    name = hashlib.sha256("\0".join(words).encode()).hexdigest()[:32]
    # deferred: the settings module loads only when a help text is looked up (a plain command never needs it)
    from benchlab.data.settings import get_settings

    return get_settings().cache_dir / "help" / f"help-v{CACHE_VERSION}-{name}.json"


def cached_help(argv: Sequence[str], now: str | None = None) -> str | None:
    """The stored help text for ``argv`` when nothing it depends on changed, else ``None`` (``now``: the
    fingerprint, when the caller made it already)."""
    try:
        data = json.loads(_slot(argv).read_text(encoding="utf-8"))
        if data.get("fingerprint") != (now or fingerprint()) or not isinstance(data.get("text"), str):
            return None
        return str(data["text"])
    except Exception:  # deliberately broad: a missing or damaged entry means "ask the real CLI"
        return None


def store_help(argv: Sequence[str], text: str, fingerprint_before: str | None) -> bool:
    """Store ``text`` if the fingerprint did not change while it was made; a cache that cannot be written is
    skipped. Whether nothing changed (what the text was made from is what is installed now)."""
    if fingerprint_before is None:
        return False
    try:
        if fingerprint() != fingerprint_before:
            return False
        path = _slot(argv)
    except Exception:  # deliberately broad: an unusable cache setting or folder only means "not stored"
        return False
    store_json(path, {"fingerprint": fingerprint_before, "text": text})
    return True
