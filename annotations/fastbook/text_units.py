"""Words, sentences and paragraphs of a chapter text, as character spans, for selecting a context in larger steps
than a character (a curator selecting "look at what products ... used or liked." by shift+arrow needed ~150 key
presses). Pure functions over the text: the editor maps the spans to its selection.
"""

from __future__ import annotations

import re
from typing import Literal

Unit = Literal["word", "sentence", "paragraph"]

_WORD = re.compile(r"\w+(?:['’\-]\w+)*")  # markdown emphasis marks stay outside a word
#: A sentence ends at . ! ? (and any closing quotes or brackets) followed by white space or the end.
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]*_]*(?=\s|$)")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def _paragraph_bounds(text: str, index: int) -> tuple[int, int]:
    """The paragraph holding ``index``: between blank lines (or the text's ends)."""
    start = 0
    for m in _PARAGRAPH_BREAK.finditer(text, 0, index):
        start = m.end()
    following = _PARAGRAPH_BREAK.search(text, index)
    end = following.start() if following else len(text)
    return start, end


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def unit_span(text: str, index: int, unit: Unit) -> tuple[int, int]:
    """The word, sentence or paragraph at ``index`` (in white space or punctuation: the next one), trimmed of
    surrounding white space; ``(index, index)`` when there is none."""
    index = max(0, min(index, len(text)))
    if unit == "word":
        for m in _WORD.finditer(text, max(0, index - 64)):
            if m.end() > index:
                return m.start(), m.end()
        return index, index
    p_start, p_end = _paragraph_bounds(text, index)
    if unit == "paragraph":
        return _trim(text, p_start, p_end)
    start = p_start
    for m in _SENTENCE_END.finditer(text, p_start, p_end):
        if m.end() > index:
            return _trim(text, start, m.end())
        start = m.end()
    return _trim(text, start, p_end)


def extended(text: str, start: int, end: int, unit: Unit) -> tuple[int, int]:
    """Selecting a unit again: when ``[start, end)`` already ends on a whole unit, add the next one (so repeated
    presses grow the selection a word, sentence or paragraph at a time); otherwise the unit at ``start``."""
    if start == end:
        return unit_span(text, start, unit)
    first = unit_span(text, start, unit)
    if first[0] == start and end >= first[1]:
        following = unit_span(text, end, unit)
        if following[1] > end:
            return start, following[1]
        return start, end
    return first
