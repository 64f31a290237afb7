"""Participant texts (consent, instructions, items) as HTML that can never run: every character of the text is
escaped first, then a small subset of markdown is turned into tags the escaping cannot produce.

The subset: ``#``/``##``/``###`` headings, paragraphs (blank line), ``- ``/``* `` lists, ``**bold**``,
``*italic*``/``_italic_``. Anything else (raw HTML, links, images, ``<script>``) shows as the literal text.
"""

from __future__ import annotations

import re
from html import escape

_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_ITALIC = re.compile(r"(?<![\w*])[*_](?=\S)([^*_]+?)(?<=\S)[*_](?![\w*])")
_HEADING = re.compile(r"^(#{1,3})\s+(.*)$")
_ITEM = re.compile(r"^\s*[-*]\s+(.*)$")


def inline(text: str) -> str:
    """One line of text: escaped, then bold and italic."""
    out = escape(text, quote=True)
    out = _BOLD.sub(r"<strong>\1</strong>", out)
    return _ITALIC.sub(r"<em>\1</em>", out)


def plain(text: str) -> str:
    """Text shown exactly (an item, a passage): escaped, line breaks kept as paragraphs and breaks."""
    paras = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    return "".join(f"<p>{'<br>'.join(escape(line, quote=True) for line in p.splitlines())}</p>" for p in paras)


def markdown(text: str, *, top: int = 1) -> str:
    """``text`` (the markdown subset) as HTML; ``top`` is the level of a ``#`` heading (2 inside a page that has
    its own ``h1``)."""
    blocks: list[str] = []
    para: list[str] = []
    items: list[str] = []

    def flush() -> None:
        if para:
            blocks.append(f"<p>{inline(' '.join(para))}</p>")
            para.clear()
        if items:
            blocks.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        if not line.strip():
            flush()
            continue
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if heading:
            flush()
            level = min(6, len(heading.group(1)) + top - 1)
            blocks.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
        elif item:
            if para:
                flush()
            items.append(item.group(1))
        else:
            if items:
                flush()
            para.append(line.strip())
    flush()
    return "".join(blocks)
