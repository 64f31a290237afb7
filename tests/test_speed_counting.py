"""Issue 24 item 3: the counting ``np.unique`` the WorldSense scoring uses for its cells gives what ``np.unique``
gives (values, their order, each row's index and the dtype), whatever the values."""

from __future__ import annotations

import numpy as np
import pytest

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
