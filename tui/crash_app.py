"""An app base whose crashes end like every other benchlab crash: terminal restored, report file, exit 70.

Textual's default (``App._handle_exception`` -> ``_fatal_error``) prints a rich traceback *with local variables*
once the app has closed, and ``App.run()`` then returns normally: the command exited 0 and a participant's answers
could be on the screen. Here an exception in a handler, worker or timer closes the app the same way but renders
nothing, and ``run``/``run_async`` raise it again once the terminal is restored, so the CLI's ``main()`` writes
the crash report (:mod:`benchlab.tui.crash`) and exits 70. ``run_test`` re-raises it too (Textual's own rule).
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.app import App

from benchlab.tui.crash import EXIT_CODE

ReturnType = TypeVar("ReturnType")


class CrashSafeApp(App[ReturnType]):
    """``App`` that never shows a traceback and raises its first unhandled exception from ``run()``."""

    @property
    def crash(self) -> Exception | None:
        """The first unhandled exception of this run (``None`` if it did not crash)."""
        return self._exception

    def _handle_exception(self, error: Exception) -> None:
        # Textual's version, minus the rendering: keep the first error, set the code, close the app.
        self._return_code = EXIT_CODE
        if self._exception is None:
            self._exception = error
            self._exception_event.set()
        self._close_messages_no_wait()

    async def run_async(self, *args: Any, **kwargs: Any) -> ReturnType | None:
        result = await super().run_async(*args, **kwargs)
        if self._exception is not None:
            raise self._exception  # the driver has closed: the terminal is back to normal
        return result
