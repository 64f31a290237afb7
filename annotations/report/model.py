"""The report as data: sections of paragraphs, tables and figures, rendered alike to HTML, Markdown and LaTeX.

One structure for every output keeps the three the same content (a reviewer reading the Markdown sees what the
HTML shows); renderers only format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TBC = "to be completed by the researcher"


@dataclass
class Grid:
    """A table: a caption, column names and rows of display text."""

    caption: str
    columns: list[str]
    rows: list[list[str]]


@dataclass
class Figure:
    """An inline SVG figure (no external assets) with a caption; ``alt`` is its content in words for Markdown."""

    caption: str
    svg: str
    alt: str


Block = str | Grid | Figure


@dataclass
class Section:
    title: str
    anchor: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> Section:
        self.blocks.extend(blocks)
        return self


@dataclass
class Report:
    title: str
    subtitle: str
    sections: list[Section]
    methods_latex: str
    exclusion_log: list[Any] = field(default_factory=list)  # the log's entries (one per person and rule)
    #: the comparison's benchmark-specific numeric tables (name -> pandas DataFrame; SORT: ``reading``), for the
    #: release bundle's ``tables/<name>.csv``
    tables: dict[str, Any] = field(default_factory=dict)
