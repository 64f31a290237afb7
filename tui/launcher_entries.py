"""Modules that register launcher tasks and entries; importing this module fills the registries.

Add one import line per module (kept sorted); each module calls ``register_task`` / ``register_entry``.
"""

from benchlab.tui import curate_ui as _curate_ui  # noqa: F401
from benchlab.tui import results_ui as _results_ui  # noqa: F401
from benchlab.tui import sort_ui as _sort_ui  # noqa: F401
from benchlab.tui import worldsense_ui as _worldsense_ui  # noqa: F401
