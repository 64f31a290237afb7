"""The cyclic garbage collector paused while a command loads its libraries, and what they made frozen.

Why: loading pandas, numpy and pyarrow (and a comparison's own modules) makes hundreds of thousands of container
objects, and the collector walked them again and again while they loaded: ~50 ms of a ~1 s ``compare
worldsense``, ~5% of its instructions. They live as long as the process, so they are frozen (``gc.freeze``) once
loaded: later collections do not walk them either. Collection itself resumes as it was, so a long command
(a session, a server) frees its cyclic garbage as before; objects that die are still freed by their reference
counts, frozen or not.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def uncollected_imports() -> Iterator[None]:
    """Run the block (a command's deferred imports) with the collector paused; then freeze every object there is
    and resume collecting (if it was on)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
