"""Which answer component of one curator's copy is which component of another's: a stable identity, not position.

Components carry no ids (spec: only their position), and the editor's ``o`` inserts a component in the middle of a
question, so matching by position pairs every later component with its neighbour: a review merge that took B then
A duplicated one component and lost the new one, and agreement compared unrelated components. A component's
identity here is its answer text (the piece of the gold answer it stands for, which curators rarely change; quotes
and spacing ignored). The two sequences are aligned in order on that identity (``difflib``, so a component inserted
or deleted shifts nothing); components whose answer text was edited in place are paired with the component at the
same place between two matched ones. Review, merge and agreement all go through :func:`align`.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from benchlab.data.fastbook.benchmark import Component

#: One aligned pair: the component's position in A and in B (``None`` where that copy lacks it).
Pair = tuple[int | None, int | None]


def identity(component: Component) -> str:
    """The key a component is known by across copies: its answer text, without stray quotes and spacing."""
    return " ".join(component.answer_text.strip().strip('"“”').split()).casefold()


def align(a: Sequence[Component], b: Sequence[Component]) -> list[Pair]:
    """Every component of A and of B exactly once, paired where they are the same component, in merged order."""
    keys_a = [identity(c) for c in a]
    keys_b = [identity(c) for c in b]
    pairs: list[Pair] = []
    matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pairs.extend(zip(range(i1, i2), range(j1, j2), strict=True))
        elif tag == "delete":
            pairs.extend((i, None) for i in range(i1, i2))
        elif tag == "insert":
            pairs.extend((None, j) for j in range(j1, j2))
        else:  # replaced: answer texts edited in place pair up in order, the rest is only in one copy
            common = min(i2 - i1, j2 - j1)
            pairs.extend(zip(range(i1, i1 + common), range(j1, j1 + common), strict=True))
            pairs.extend((i, None) for i in range(i1 + common, i2))
            pairs.extend((None, j) for j in range(j1 + common, j2))
    return pairs
