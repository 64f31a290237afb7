"""The ``BENCHLAB_*`` environment variables every benchmark shares and every folder benchlab reads or writes by
default, in one object; and the rule by which a benchmark reads its own variables.

Why one object: the variables used to be read wherever they were needed (and two modules guessed the datasets
folder from where the package was installed, which is wrong for an installed copy). Now they are read once, here,
typed and documented in the README's "Settings" table; every reader calls :func:`get_settings`. A benchmark's own
variables (a data set's location, a download mirror) live in its folder's ``settings.py``, read with :func:`env` /
:func:`env_path` (an empty value counts as unset) and cached with :func:`settings_reader`, so
:func:`reset_settings` forgets them too.

A plain frozen dataclass, not pydantic-settings: importing pydantic-settings costs ~170 ms, and the lean scoring
path (a benchmark's ``python -m`` scorer, which reads the cache folder from here) loads no pydantic at all.

User folders come from ``platformdirs`` (XDG on Linux) unless a variable overrides them. The shared datasets
folder is ``$BENCHLAB_SHARED_DATASETS`` or ``../shared/datasets`` seen from the current directory (a lab's
checkout beside its data), never a path derived from the installed package.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from platformdirs import user_cache_dir, user_config_dir, user_data_dir, user_log_dir

from benchlab.data.errors import BenchlabError

APP_NAME = "benchlab"
PREFIX = "BENCHLAB_"
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def _user_dir(kind: str) -> Path:
    finders = {"cache": user_cache_dir, "config": user_config_dir, "data": user_data_dir, "log": user_log_dir}
    return Path(finders[kind](APP_NAME, appauthor=False))


#: Every setting read so far in this process and its value: what a text made now depends on (the help listing,
#: ``benchlab.tui.help_listing``, is valid only while these keep their values).
READ: dict[str, str | None] = {}


def env(name: str) -> str | None:
    """``$BENCHLAB_<NAME>``; an empty value counts as unset."""
    value = os.environ.get(PREFIX + name.upper(), "").strip() or None
    READ[name] = value
    return value


def env_path(name: str) -> Path | None:
    """``$BENCHLAB_<NAME>`` as a path; an empty value counts as unset."""
    value = env(name)
    return Path(value) if value is not None else None


def _flag(name: str) -> bool:
    value = env(name)
    if value is None or value.lower() in _FALSE:
        return False
    if value.lower() in _TRUE:
        return True
    raise BenchlabError(f"${PREFIX}{name.upper()} must be 1/true/yes/on or 0/false/no/off, not {value!r}")


#: The experimenter's key sequence by default: Ctrl+X, then the word "menu" typed (see :func:`_experimenter_keys`).
DEFAULT_EXPERIMENTER_KEYS = "ctrl+x menu"
_LEAD = re.compile(r"(ctrl|alt)\+[a-z0-9]|f([1-9]|1[0-9]|2[0-4])")
#: Ctrl chords the terminal sends as Backspace, Tab, Enter and Line feed: never seen as chords.
_NOT_CHORDS = {"ctrl+h", "ctrl+i", "ctrl+j", "ctrl+m"}
_WORD = re.compile(r"[a-z0-9]{3,16}")


def _experimenter_keys() -> str:
    """``$BENCHLAB_EXPERIMENTER_KEYS``: a chord (``ctrl+x``, ``alt+k``, ``f12``) then a word typed after it.

    Why a word: a single chord is one random key among ~100 for a participant mashing keys (1,500 random keys opened
    the old Ctrl+X Ctrl+E menu twice), and a bash chord is one that people know; a 3-letter word after the chord is
    a one-in-a-million sequence by chance."""
    value = env("experimenter_keys")
    if value is None:
        return DEFAULT_EXPERIMENTER_KEYS
    parts = value.lower().split()
    if len(parts) != 2 or not _LEAD.fullmatch(parts[0]) or parts[0] in _NOT_CHORDS or not _WORD.fullmatch(parts[1]):
        raise BenchlabError(f"${PREFIX}EXPERIMENTER_KEYS must be a chord (ctrl+LETTER, alt+LETTER or F1..F24) and a "
                            f"word of 3 to 16 letters or digits typed after it, e.g. {DEFAULT_EXPERIMENTER_KEYS!r}; "
                            f"not {value!r}")
    return " ".join(parts)


@dataclass(frozen=True)
class Settings:
    """benchlab's settings: field ``x`` is read from ``$BENCHLAB_X`` (see the README's "Settings" table)."""

    #: The full datasets (read-only); default ../shared/datasets from the current directory.
    shared_datasets: Path = field(default_factory=lambda: env_path("shared_datasets")
                                  or Path.cwd().parent / "shared" / "datasets")
    #: Tests needing the full datasets fail instead of skipping.
    require_full_data: bool = field(default_factory=lambda: _flag("require_full_data"))
    #: Caches (safe to delete).
    cache_dir: Path = field(default_factory=lambda: env_path("cache_dir") or _user_dir("cache"))
    #: User configuration.
    config_dir: Path = field(default_factory=lambda: env_path("config_dir") or _user_dir("config"))
    #: Downloaded data.
    data_dir: Path = field(default_factory=lambda: env_path("data_dir") or _user_dir("data"))
    #: The keys that open the experimenter menu in a participant session: a chord, then a word typed after it.
    experimenter_keys: str = field(default_factory=_experimenter_keys)
    #: Crash reports.
    crash_dir: Path = field(default_factory=lambda: env_path("crash_dir") or _user_dir("log") / "crash")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings, read from the environment on first use."""
    return Settings()


T = TypeVar("T")
_READERS: list[Callable[[], None]] = []


def settings_reader(read: Callable[[], T]) -> Callable[[], T]:
    """``read`` (a benchmark's own settings) run on first use and kept, like :func:`get_settings`, until
    :func:`reset_settings`."""
    cached = lru_cache(maxsize=1)(read)
    _READERS.append(cached.cache_clear)
    return cached


def reset_settings() -> None:
    """Forget the settings read so far, the benchmarks' own included (tests that change the environment call
    this)."""
    get_settings.cache_clear()
    for forget in _READERS:
        forget()
