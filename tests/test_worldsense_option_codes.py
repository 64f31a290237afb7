"""The trials reader's codes for each trial's answer options: every list of options gets one code, the same lists
the same code, and the code's name is the options joined by ``|``, for any options (a 1-D integer per list)."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.data.worldsense.columns import _option_combinations

OPTIONS = st.sampled_from(["TRUE", "FALSE", "1", "2", "3", "POSSIBLE", "", "a|b", "ü"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(OPTIONS, min_size=1, max_size=5), min_size=1, max_size=40), st.integers(0, 39))
def test_each_option_list_has_one_code_named_by_its_options(lists: list[list[str]], cut: int) -> None:
    column = pa.array(lists, type=pa.list_(pa.string()))
    column = column.slice(min(cut, len(lists) - 1))  # a slice starts at a non-zero offset
    expected = lists[min(cut, len(lists) - 1):]
    result = _option_combinations(column)
    assert result is not None
    codes, names = result
    assert len(codes) == len(expected)
    by_list: dict[tuple[str, ...], int] = {}
    for options, code in zip(expected, codes.tolist(), strict=True):
        assert by_list.setdefault(tuple(options), code) == code  # the same list, the same code
    assert len(by_list) == len(names)  # different lists, different codes
    # a name is the options joined (lists that join alike, e.g. ["a|b"] and ["a", "b"], still get two codes)
    for options, code in by_list.items():
        assert names[code] == "|".join(options)


def test_the_published_option_lists() -> None:
    lists = [["TRUE", "FALSE"], ["1", "2", "3"], ["POSSIBLE", "IMPOSSIBLE"], ["TRUE", "FALSE"], ["1", "2", "3"]]
    result = _option_combinations(pa.array(lists))
    assert result is not None
    codes, names = result
    assert [names[c] for c in codes.tolist()] == ["TRUE|FALSE", "1|2|3", "POSSIBLE|IMPOSSIBLE", "TRUE|FALSE", "1|2|3"]
