"""Issue 24 item 3: counting instead of sorting gives the same answers: the counting ``np.unique`` the WorldSense
scoring uses for its cells (values, their order, each row's index and the dtype), and the models cut to the
people's units from category codes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchlab.data.models.same_items import restrict_to_shared
from benchlab.data.worldsense.tuple_scores import small_unique

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("values", [
    RNG.integers(-5, 50, 1000),  # negative and positive, a small range: counted
    RNG.integers(0, 3, 40).astype(np.uint8),  # unsigned
    RNG.integers(0, 10**9, 200),  # a wide range: sorted, as np.unique does
    np.array([], dtype=np.int64),
    np.array([3.5, 1.0, 3.5, -2.0]),  # not integers
    np.array([[4, 1], [4, 9]]),  # two dimensions: flattened, as np.unique does
], ids=["small-range", "unsigned", "wide-range", "empty", "floats", "2d"])
def test_small_unique_is_np_unique(values: np.ndarray) -> None:
    got_values, got_rows = small_unique(values)
    want_values, want_rows = np.unique(values, return_inverse=True)
    assert got_values.dtype == want_values.dtype
    assert np.array_equal(got_values, want_values)
    assert np.array_equal(got_rows, want_rows.ravel())


def _frames(categorical: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(3)
    names = [f"t{i:03d}" for i in range(60)]
    models = pd.DataFrame({
        "who": rng.choice(["M2", "M1", "M3"], 400).astype(object),
        "unit": rng.choice(names[:50], 400).astype(object),
        "score": rng.random(400),
    })
    models.loc[models["who"] == "M3", "unit"] = "t059"  # a model that shares no unit with the people
    humans = pd.DataFrame({"who": ["p1"] * 30, "unit": rng.choice(names[20:58], 30).astype(object),
                           "score": rng.random(30)})
    if categorical:
        dtype = pd.CategoricalDtype(pd.Index(names, dtype=object))
        models["unit"] = models["unit"].astype(dtype)
        humans["unit"] = humans["unit"].astype(dtype)
    return humans, models


def test_same_items_from_category_codes_are_those_from_sets() -> None:
    """The models cut to the people's units from the categories' codes (WorldSense's tuple ids) keep the same
    rows, in the same order, with the same notes, as from the units themselves."""
    humans, models = _frames(categorical=False)
    want, want_notes = restrict_to_shared(humans, models, what="tuples")
    chumans, cmodels = _frames(categorical=True)
    got, got_notes = restrict_to_shared(chumans, cmodels, what="tuples")
    assert got_notes == want_notes and len(got_notes) == 3  # two models cut, one sharing nothing
    assert got.index.tolist() == want.index.tolist()
    assert got["unit"].astype(object).tolist() == want["unit"].tolist()
