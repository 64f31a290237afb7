"""Declared exclusion rules: what a study may leave out of its analysis, said before the data exist.

A rule names the data it reads (practice trials, declared attention items, response times, seen share, completion,
the assignments log) and never the scored outcome: a participant dropped for low accuracy on the very trials that
are compared with a model selects on the result (issue 22: coverage of the interval fell to 34% that way). So a rule
on accuracy, score or correctness of scored trials is refused by name. Rules come from the study file's
``[[exclusions]]`` tables (declared, before the data) or from the command line (``--exclude``), which the outputs
label exploratory.

In ``study.toml``::

    [[exclusions]]
    rule = "rt_floor"      # responses faster than ms count as too fast; more than max_share of them excludes
    ms = 200
    max_share = 0.1
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlab.data.errors import BenchlabError


@dataclass(frozen=True)
class RuleKind:
    """One kind of rule: the data it reads (said in every log line) and its parameters with their defaults."""

    name: str
    data: str
    required: tuple[str, ...]
    defaults: dict[str, float] = field(default_factory=dict)
    describe: str = ""


KINDS: dict[str, RuleKind] = {k.name: k for k in (
    RuleKind("rt_floor", "response times of scored trials", ("ms",), {"max_share": 0.1},
             "more than max_share of scored responses faster than ms"),
    RuleKind("rt_ceiling", "response times of scored trials", ("ms",), {"max_share": 0.1},
             "more than max_share of scored responses slower than ms"),
    RuleKind("practice_accuracy", "practice trials (never scored)", ("min",), {},
             "accuracy on the practice trials below min"),
    RuleKind("attention_checks", "declared attention items ([online.attention], scored in the completion event)", (),
             {"max_failed": 0},
             "more than max_failed failed attention checks"),
    RuleKind("incomplete", "session completion (plans and events logs)", (), {},
             "a session that did not record every planned scored trial"),
    RuleKind("seen_share", "seen share of the text (reading paradata)", ("min",), {},
             "mean seen share of the text below min"),
    RuleKind("duplicate", "the study's assignments log (person key of online joins: the same person under another id)",
             (), {},
             "the same person (assignments' person key) seen under an earlier participant id"),
)}

#: Names that would select on the scored outcome; refused with the reason, not as merely unknown.
OUTCOME_WORDS = ("accuracy", "score", "correct", "control_accuracy", "min_accuracy", "control", "performance")


@dataclass(frozen=True)
class Rule:
    """A checked rule: its kind, its parameters, and whether it was declared before the data (study file)."""

    kind: str
    params: dict[str, float]
    declared: bool = True
    source: str = ""  # where it was given: "study.toml:12" or "command line"

    @property
    def data(self) -> str:
        return KINDS[self.kind].data

    @property
    def label(self) -> str:
        return "declared" if self.declared else "exploratory (chosen after the data)"

    def describe(self) -> str:
        params = ", ".join(f"{k}={v:g}" for k, v in self.params.items())
        return f"{self.kind}({params}) on {self.data}" if params else f"{self.kind} on {self.data}"


def check_rule(raw: dict[str, Any], *, declared: bool, where: str, path: Path | None = None,
               line: int | None = None) -> Rule:
    """A rule from its table (or command-line spelling), or one clear line naming the file and line."""
    name = str(raw.get("rule", "")).strip()
    if not name:
        raise BenchlabError("an exclusion rule needs rule = \"...\" (known: " + ", ".join(KINDS) + ")", path, line)
    if name not in KINDS:
        if name in OUTCOME_WORDS or any(w in name for w in ("accuracy", "score", "correct")):
            raise BenchlabError(
                f"exclusion rule {name!r} selects on the scored outcome; a rule must name its data (practice "
                f"trials, attention items, response times, seen share, completion, duplicates): "
                f"{', '.join(KINDS)}", path, line)
        raise BenchlabError(f"unknown exclusion rule {name!r} (known: {', '.join(KINDS)})", path, line)
    kind = KINDS[name]
    params: dict[str, float] = dict(kind.defaults)
    for key, value in raw.items():
        if key == "rule":
            continue
        if key not in kind.required and key not in kind.defaults:
            known = ", ".join((*kind.required, *kind.defaults)) or "none"
            raise BenchlabError(f"exclusion rule {name}: unknown setting {key!r} (settings: {known})", path, line)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BenchlabError(f"exclusion rule {name}: {key} must be a number, not {value!r}", path, line)
        params[key] = float(value)
    missing = [k for k in kind.required if k not in params]
    if missing:
        raise BenchlabError(f"exclusion rule {name} needs {', '.join(missing)}", path, line)
    for key in ("max_share", "min"):
        if key in params and not 0 <= params[key] <= 1:
            raise BenchlabError(f"exclusion rule {name}: {key} must be between 0 and 1", path, line)
    if "ms" in params and params["ms"] <= 0:
        raise BenchlabError(f"exclusion rule {name}: ms must be positive", path, line)
    return Rule(name, params, declared, where)


def declared_rules(tables: list[dict[str, Any]], path: Path) -> list[Rule]:
    """The study file's ``[[exclusions]]`` tables, checked (an error names the file and the table's line)."""
    lines = _table_lines(path)
    rules = []
    for number, raw in enumerate(tables):
        line = lines[number] if number < len(lines) else None
        if not isinstance(raw, dict):
            raise BenchlabError("each [[exclusions]] entry must be a table with rule = \"...\"", path, line)
        rules.append(check_rule(raw, declared=True, where=f"{path.name}:{line}" if line else path.name,
                                path=path, line=_rule_line(path, line)))
    return rules


def parse_cli_rule(text: str) -> Rule:
    """``rt_floor:ms=200,max_share=0.1`` (``--exclude`` on the command line): an exploratory rule."""
    name, _, rest = text.partition(":")
    raw: dict[str, Any] = {"rule": name.strip()}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise BenchlabError(f"--exclude {text!r}: write settings as key=value (e.g. rt_floor:ms=200)")
        try:
            raw[key.strip()] = float(value)
        except ValueError:
            raise BenchlabError(f"--exclude {text!r}: {key.strip()} must be a number") from None
    try:
        return check_rule(raw, declared=False, where="command line")
    except BenchlabError as exc:
        raise BenchlabError(f"--exclude {text!r}: {exc}") from None


def _table_lines(path: Path) -> list[int]:
    """Line numbers of each ``[[exclusions]]`` header, in order (tomllib gives no positions)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [n for n, line in enumerate(text.splitlines(), start=1) if re.match(r"^\s*\[\[\s*exclusions\s*\]\]", line)]


def _rule_line(path: Path, header: int | None) -> int | None:
    """The ``rule = ...`` line of the table starting at ``header`` (the header itself when there is none)."""
    if header is None:
        return None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return header
    for number in range(header, len(lines)):
        text = lines[number]
        if text.lstrip().startswith("["):
            break
        if re.match(r"^\s*rule\s*=", text):
            return number + 1
    return header
