"""Modules that register launcher tasks and entries; importing this module fills the registries.

Add one import line per module (kept sorted); each module calls ``register_task`` / ``register_entry``.
"""

from benchlab.tui import results_ui as _results_ui  # noqa: F401
from benchlab.tui.fastbook import launcher_entry as _curate_ui  # noqa: F401
from benchlab.tui.sort import task_ui as _sort_ui  # noqa: F401
from benchlab.tui.worldsense import task_ui as _worldsense_ui  # noqa: F401
