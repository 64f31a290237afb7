"""Which Textual driver the app runs on: ``TEXTUAL_DRIVER`` when set (a web server's choice), the web session
driver for ``--web-session``, else the terminal driver with the frame clock.

Textual reads ``TEXTUAL_DRIVER`` only when an app passes no driver class; the app used to pass its own terminal
driver always, so a web server's driver was ignored (the page stayed on the splash and the packet stream was read
as keystrokes). The variable is read when the app is built (not when Textual was imported), with Textual's own
``module.path:ClassName`` syntax.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from textual.driver import Driver

from benchlab.data.errors import BenchlabError
from benchlab.tui.frame_clock import timed_driver_class

WEB_SESSION_DRIVER = "benchlab.tui.web.driver:WebSessionDriver"


def import_driver(spec: str) -> type[Driver]:
    """The driver class named ``module.path:ClassName`` (a one-line error when it is not one)."""
    module_name, _, name = spec.partition(":")
    try:
        found: Any = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise BenchlabError(f"TEXTUAL_DRIVER={spec!r}: cannot import it ({exc})") from None
    if not (isinstance(found, type) and issubclass(found, Driver)):
        raise BenchlabError(f"TEXTUAL_DRIVER={spec!r} is not a Textual driver class")
    return found


def app_driver_class(*, web_session: bool = False) -> type[Any] | None:
    """The app's driver class (``None``: Textual's default, on Windows)."""
    spec = os.environ.get("TEXTUAL_DRIVER", "").strip()
    if spec:
        return import_driver(spec)
    if web_session:
        return import_driver(WEB_SESSION_DRIVER)
    return timed_driver_class()
