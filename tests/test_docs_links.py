"""Every relative link of README.md and docs/*.md leads somewhere, and every docs page is reachable from the README.

The README is short and points into ``docs/`` for the reference; a renamed page or heading would leave a newcomer
on a dead link that no other test notices. Anchors are checked against GitHub's heading slugs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`[^`]*`")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks (a ``[x](y)`` in a code sample is not a link)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def links(page: Path) -> list[str]:
    """The link targets of a page, code spans left out."""
    return [m.group(1) for line in prose_lines(page.read_text(encoding="utf-8"))
            for m in LINK.finditer(CODE_SPAN.sub("", line))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: link text kept, code marks dropped, punctuation out, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor a page's headings give (a repeated heading gets -1, -2 ... as on GitHub)."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose_lines(page.read_text(encoding="utf-8")):
        match = re.match(r"#{1,6} (.+)", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_points_to_a_file_and_heading(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto: ... are not checked here
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading with that anchor in {dest.relative_to(REPO)}")
    assert broken == [], f"{page.relative_to(REPO)}: " + "; ".join(broken)


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(REPO / t.partition("#")[0]).resolve() for t in links(REPO / "README.md") if t.startswith("docs/")}
    missing = [p.name for p in PAGES[1:] if p.resolve() not in linked]
    assert missing == [], f"docs pages the README does not link: {missing}"


def test_the_slugs_follow_github() -> None:
    assert slug("SORT / BookSORT") == "sort--booksort"
    assert slug("Participants in a browser (`benchlab serve`)") == "participants-in-a-browser-benchlab-serve"
    assert slug("Humans vs models: comparison tables, tests") == "humans-vs-models-comparison-tables-tests"
