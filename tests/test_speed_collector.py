"""Issue 24 item 3: a command's libraries load with the cyclic collector paused and are frozen afterwards; the
collector is back as it was, so a long command (a session, a server) still frees its cyclic garbage."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from benchlab.data.collector import uncollected_imports


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    gc.enable() if enabled else gc.disable()


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_loading_pauses_the_collector_then_freezes_what_was_made_and_collects_again() -> None:
    gc.enable()
    frozen = gc.get_freeze_count()
    with uncollected_imports():
        assert not gc.isenabled()
        loaded = [Node() for _ in range(1000)]  # what a library makes while it loads
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(loaded)
    later = Node()  # made after loading: a cycle the collector still frees
    gone = weakref.ref(later)
    del later
    gc.collect()
    assert gone() is None


def test_a_collector_turned_off_before_stays_off() -> None:
    gc.disable()
    with uncollected_imports():
        pass
    assert not gc.isenabled()
