"""An app base whose crashes end like every other benchlab crash: terminal restored, report file, exit 70.

:class:`CrashSafeApp` replaces Textual's private exception path, so it lives in :mod:`benchlab.tui.textual_private`
(the one module that touches Textual's private API); this is its public home for the apps that build on it.
"""

from __future__ import annotations

from benchlab.tui.textual_private import CrashSafeApp

__all__ = ["CrashSafeApp"]
