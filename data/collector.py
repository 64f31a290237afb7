"""The cyclic garbage collector paused for the span of one computing command (a comparison).

Why: loading pandas, numpy and pyarrow and reading a lab's files make hundreds of thousands of container objects,
and the collector walked them again and again while the command ran: ~50 ms of a ~1 s computed comparison, ~5%
of its instructions. A comparison is a bounded computation whose memory is its arrays and frames, freed by their
reference counts; the cycles it leaves are few (the paused run's peak memory is the same, 160 MB). So the
collector is paused for the block, and at its end everything there is gets frozen (``gc.freeze``) before collecting
resumes: otherwise the first collection afterwards walks all of it at once (~35 ms). Frozen objects go back to the
collector when the process exits (before the interpreter's own last collection, so its teardown is as usual) and
at the start of the next paused block, which collects them then: a process that runs many commands (a test suite,
a notebook) keeps nothing for good.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
from collections.abc import Iterator

_UNFREEZE_AT_EXIT: list[bool] = []


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off; then freeze what exists and collect again (if it was on)."""
    enabled = gc.isenabled()
    if gc.get_freeze_count():  # a process running several commands (a test suite, a notebook): what the last one
        gc.unfreeze()  # froze is collected now, once
        gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if not _UNFREEZE_AT_EXIT:
            _UNFREEZE_AT_EXIT.append(True)
            atexit.register(gc.unfreeze)
        if enabled:
            gc.enable()
