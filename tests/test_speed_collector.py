"""Issue 24 item 3: a comparison runs with the cyclic collector paused; afterwards the collector is back as it was
and what the command left frozen is collectable again at the next command and at exit, so neither a long session
nor a process running many commands keeps cyclic garbage for good."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator

import pytest

from benchlab.data.collector import collector_paused


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    gc.enable() if enabled else gc.disable()


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def _cycle() -> weakref.ref[Node]:
    node = Node()
    return weakref.ref(node)


def test_the_collector_is_paused_in_the_block_and_back_after_it() -> None:
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
        during = _cycle()
        gc.collect()  # an explicit collection still works; the automatic ones are off
        assert during() is None
        kept = Node()  # alive when the block ends: frozen, not walked by the next collections
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    later = _cycle()  # made after the block: collected as usual
    gc.collect()
    assert later() is None
    left = weakref.ref(kept)
    del kept
    gc.collect()
    assert left() is not None  # frozen garbage waits ...
    with collector_paused():
        pass
    gc.collect()
    assert left() is None  # ... until the next command unfreezes it


def test_a_collector_turned_off_before_stays_off() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_a_process_ends_with_its_objects_collectable_again() -> None:
    """The last collection of a process (its teardown) sees the frozen objects again: finalizers run as usual."""
    probe = ("import gc, sys\nfrom benchlab.data.collector import collector_paused\n"
             "class Torn:\n    def __init__(self):\n        self.me = self\n"
             "    def __del__(self):\n        sys.stdout.write('finalised')\n"
             "with collector_paused():\n    t = Torn()\ndel t\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout == "finalised"
