"""``score worldsense`` on the same tuples for people and models: each model's tuple scores are cut to the tuples
people completed, so a model's row covers exactly the people's items (``--all-items`` turns it off).

Done on the tuple scores (numpy arrays, before pandas loads), so the cut costs nothing measurable; the note per
model (what was left out on each side) is :func:`benchlab.data.models.same_items.shared_units`'s, the wording
``compare`` uses. Results files whose model name starts with ``human`` are people (as everywhere in WorldSense).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from benchlab.data.worldsense.tuple_scores import TupleScores


def _is_human(modelname: str) -> bool:
    return modelname.lower().startswith("human")


def restrict_to_people_tuples(scored: TupleScores, warn: Callable[[str], None]) -> TupleScores:
    """The tuple scores with each model's tuples cut to those people completed; one warning per model cut (or
    sharing none: it then keeps its own tuples, said so). Unchanged without people or without models."""
    human_file = np.array([_is_human(m) for m in scored.models], dtype=bool)
    if not human_file.any() or human_file.all() or scored.n == 0:
        return scored
    # deferred: the shared wording loads with the model-run readers (pydantic), needed only with people and models
    from benchlab.data.models.same_items import shared_units

    of_people = human_file[scored.file]
    people = {int(t) for t in np.unique(scored.tuple_code[of_people])}
    keep = of_people.copy()
    repeated = {m for m in scored.models if scored.models.count(m) > 1}
    for index in np.flatnonzero(~human_file):
        rows = scored.file == index
        if not rows.any():
            continue
        model = scored.models[index]
        name = f"{scored.promptings[index]}/{model}" if model in repeated else model
        kept, note = shared_units(name, {int(t) for t in np.unique(scored.tuple_code[rows])}, people, "tuples")
        if note is not None:
            warn(note)
        keep |= rows & np.isin(scored.tuple_code, np.fromiter(kept, dtype=np.int64, count=len(kept)))
    if keep.all():
        return scored
    return replace(scored, file=scored.file[keep], tuple_code=scored.tuple_code[keep],
                   problem_code=scored.problem_code[keep], size=scored.size[keep], acc=scored.acc[keep],
                   bias=scored.bias[keep])
