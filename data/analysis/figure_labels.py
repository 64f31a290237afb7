"""Readable names for the condition codes of a comparison, for figures a reader understands without a key.

The tables key conditions by short codes (``e250-s20 d62``, ``Infer.trivial``, ``overall``); a figure in a paper
must say "excerpt 250 words, segment 20 words" and "distance 62 words". A code is read token by token, so codes
that gain tokens (memory condition, delay, gap bins of the whole-book design) still get a label: a token this
module does not know is kept verbatim, never dropped, so two conditions never end up with one label.

A condition splits into the *panel* it belongs to (everything but its distance / gap bin) and its *row* inside
that panel (the bin, or "all distances"): one panel per design cell keeps conditions apart and lets a figure
grow by panels instead of dropping categories.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OVERALL = "overall"

_PROBLEMS = {"Infer": "inference", "Consist": "consistency", "Compl": "completeness"}
_VARIANTS = {"trivial": "trivial control", "normal": "normal"}
_CONFIG = re.compile(r"^e(\d+)-s(\d+)$")
_DISTANCE = re.compile(r"^d(\d+)$")
_GAP = re.compile(r"^(?:g|gap)(\d+k?)-(\d+k?)$")
_DELAY = re.compile(r"^delay[-_=]?(.+)$", re.IGNORECASE)
_MEMORY = {"stm": "short-term memory (text on screen)", "ltm": "long-term memory (no text)"}


@dataclass(frozen=True)
class ConditionLabel:
    """Where a condition goes in a figure and what it is called there."""

    code: str  # the table's key
    panel: str  # the panel title ("" when the benchmark has a single panel)
    row: str  # the row's label inside its panel
    full: str  # panel and row in one line, for notes and the terminal view


def _words(n: str) -> str:
    return f"{n} words"


def _token(tok: str) -> tuple[str, bool]:
    """A token's readable form and whether it is a bin (a row within a panel) rather than a panel attribute."""
    if m := _CONFIG.match(tok):
        return f"excerpt {_words(m[1])}, segment {_words(m[2])}", False
    if m := _DISTANCE.match(tok):
        return f"distance {_words(m[1])}", True
    if m := _GAP.match(tok):
        return f"gap {m[1]}-{m[2]} words", True
    if m := _DELAY.match(tok):
        return f"delay {m[1]}", False
    if tok.lower() in _MEMORY:
        return _MEMORY[tok.lower()], False
    if "." in tok:
        head, _, tail = tok.partition(".")
        if head in _PROBLEMS:
            return f"{_PROBLEMS[head]} ({_VARIANTS.get(tail, tail)})", False
    return tok, False


def condition_label(code: str) -> ConditionLabel:
    """The panel and row of ``code`` (see the module docstring)."""
    if code == OVERALL:
        return ConditionLabel(code, "", "overall (mean over conditions)", "overall (mean over conditions)")
    attrs: list[str] = []
    bins: list[str] = []
    for tok in code.split():
        text, is_bin = _token(tok)
        (bins if is_bin else attrs).append(text)
    if bins:
        panel = ", ".join(attrs)
        row = ", ".join(bins)
        return ConditionLabel(code, panel, row, f"{panel}, {row}" if panel else row)
    text = ", ".join(attrs)
    # a design cell on its own (a configuration code such as e250-s20): its panel, row "all" (the bins follow in
    # the same panel)
    if any(_CONFIG.match(t) for t in code.split()):
        return ConditionLabel(code, text, "all distances", text)
    return ConditionLabel(code, "", text, text)
