"""Where a key sits in a TOML or JSON file, so an error found after parsing (a schema's, which carries a path such
as ``online.completion.finished`` or ``blocks[0][3]`` but no line) can still name the line a person edits.

Both locators are for the error path only: they rescan the text, and when they cannot place the path (a key set
through a dotted key, an item inside an inline array) they fall back to the nearest enclosing table or value, or
``None``; they never raise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

Path = tuple[str | int, ...]

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=""")


def _name(part: str) -> str:
    part = part.strip()
    return part[1:-1] if len(part) >= 2 and part[0] == part[-1] and part[0] in "\"'" else part


def _toml_paths(text: str) -> list[tuple[int, Path]]:
    """(line, path) of every table header and ``key =`` line; an array of tables gets its index in the path."""
    found: list[tuple[int, Path]] = []
    table: Path = ()
    counts: dict[Path, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header is not None:
            names: Path = tuple(_name(p) for p in header.group(2).split("."))
            if header.group(1) == "[[":
                counts[names] = counts.get(names, -1) + 1
                table = (*names, counts[names])
            else:
                table = names
            found.append((number, table))
            continue
        key = _KEY.match(line)
        if key is not None:
            found.append((number, (*table, _name(key.group(1)))))
    return found


def toml_line(text: str, loc: Sequence[str | int], message: str = "") -> int | None:
    """The line of ``loc`` (a pydantic error's location) in TOML ``text``: the line setting it; else, for an error
    about a table's content, the header or key under it that ``message`` quotes (``'finished'``), else its first;
    else the nearest enclosing table's line."""
    paths = _toml_paths(text)
    wanted: Path = tuple(loc)
    quoted = set(re.findall(r"'([^']+)'", message))
    while wanted:
        exact = [n for n, p in paths if p == wanted]
        if exact:
            return exact[0]
        inside = [(n, p) for n, p in paths if p[:len(wanted)] == wanted]
        if inside:
            named = [n for n, p in inside if str(p[len(wanted)]) in quoted]
            return (named or [inside[0][0]])[0]
        wanted = wanted[:-1]
    return None


class _Scanner:
    """A small JSON reader recording the line each value starts on, by path (the text already parsed with
    :mod:`json`, so it only has to follow valid JSON)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.line = 1
        self.lines: dict[Path, int] = {}

    def _skip(self) -> None:
        text = self.text
        while self.at < len(text) and text[self.at] in " \t\r\n":
            if text[self.at] == "\n":
                self.line += 1
            self.at += 1

    def _string(self) -> str:
        end = self.at + 1
        while self.text[end] != '"':
            end += 2 if self.text[end] == "\\" else 1
        value: str = json.loads(self.text[self.at:end + 1])
        self.at = end + 1
        return value

    def value(self, path: Path) -> None:
        self._skip()
        self.lines.setdefault(path, self.line)
        char = self.text[self.at]
        if char == "{":
            self.at += 1
            self._skip()
            while self.text[self.at] != "}":
                self._skip()
                key = self._string()
                self.lines.setdefault((*path, key), self.line)
                self._skip()
                self.at += 1  # the colon
                self.value((*path, key))
                self._skip()
                if self.text[self.at] == ",":
                    self.at += 1
                self._skip()
            self.at += 1
        elif char == "[":
            self.at += 1
            index = 0
            self._skip()
            while self.text[self.at] != "]":
                self.value((*path, index))
                index += 1
                self._skip()
                if self.text[self.at] == ",":
                    self.at += 1
                self._skip()
            self.at += 1
        elif char == '"':
            self._string()
        else:
            match = re.compile(r"[^,\]}\s]+").match(self.text, self.at)
            self.at = match.end() if match else self.at + 1


def json_line(text: str, loc: Sequence[str | int]) -> int | None:
    """The line where the value at ``loc`` starts in JSON ``text`` (the nearest enclosing value's when ``loc`` is
    not in the text, e.g. a missing field: the object that lacks it); ``None`` for text that is not JSON."""
    scanner = _Scanner(text.lstrip("\ufeff"))
    try:
        scanner.value(())
    except (IndexError, ValueError):
        return None
    wanted: Path = tuple(loc)
    while wanted not in scanner.lines and wanted:
        wanted = wanted[:-1]
    return scanner.lines.get(wanted)
