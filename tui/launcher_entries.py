"""Modules that register launcher entries (tools); importing this module fills the registry.

Add one import line per module (kept sorted); each module calls ``register_entry``. Participant tasks are not
listed here: they come from :func:`benchlab.annotations.registry.registry`, in its order.
"""

from benchlab.tui import results_ui as _results_ui  # noqa: F401
from benchlab.tui import sessions_ui as _sessions_ui  # noqa: F401
from benchlab.tui import study_entry as _study_entry  # noqa: F401
from benchlab.tui.fastbook import launcher_entry as _curate_ui  # noqa: F401
