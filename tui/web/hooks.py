"""The server's extension points, for features that live outside the participant page (online recruitment: join
links, an admin dashboard, completion codes).

A :class:`ServerHooks` is handed to :class:`~benchlab.tui.web.server.SessionServer` (``hooks=``). It is one small
object so the online slice (``benchlab.tui.web.online``) and the page can be developed apart and joined in one line:

* ``routes``: each is called with the aiohttp application before it starts, and may add routes to it
  (``app.router.add_get("/join/{token}", ...)``). Routes under ``/s/`` and ``/static/`` are the page's.
* ``gate``: awaited before a participant's session is opened (before consent, before anything is written). It gets
  a :class:`Joiner` (participant id, token, user agent, the page's device report) and returns ``None`` to let the
  joiner start, or a :class:`Refusal` (an HTML page: study full, paused, already taken part...). A refused joiner
  leaves nothing in the results folder and is not counted.
* ``on_end``: awaited once per session after its end record is fsynced (completed, or aborted by the server); it
  returns what the end page shows instead of the default (:class:`EndOutcome`: an extra message, a completion
  code, a redirect URL the page follows, a link to withdraw). For a declined consent it is called with reason
  ``declined`` (nothing of the session was recorded; the decline's own code may be shown).

Every hook runs on the server's event loop: one that does file I/O should hand it to a thread
(``asyncio.to_thread``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass(frozen=True)
class Joiner:
    """Who is about to start: what the gate may decide on."""

    participant: str
    token: str
    user_agent: str
    #: The page's own report: ``width``/``height`` (CSS px), ``touch`` (touch points), ``coarse`` (a finger is the
    #: main pointer), ``fine`` (a mouse or pen is present), ``query`` (the link's URL parameters, e.g. a platform id).
    device: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Refusal:
    """A joiner may not start: the page shows ``title`` and ``message`` (plain text, escaped) or ``html`` (a whole
    page body fragment the hook built and escaped itself)."""

    title: str
    message: str = ""
    html: str | None = None


@dataclass(frozen=True)
class SessionEnd:
    """A finished session, handed to ``on_end`` after its last record and end event are on disk."""

    participant: str
    token: str
    reason: str  # "completed", "aborted" or "declined"
    recorded: int
    planned: int
    results: str  # the results file's path
    events: str  # the event log's path


@dataclass(frozen=True)
class EndOutcome:
    """What the end page adds: a message, a completion code shown large, and/or a URL the page goes to."""

    message: str = ""
    code: str | None = None
    redirect: str | None = None
    #: A same-site path where the participant may withdraw their data (the end page links to it).
    withdraw: str | None = None


Gate = Callable[[Joiner], Awaitable["Refusal | None"]]
OnEnd = Callable[[SessionEnd], Awaitable["EndOutcome | None"]]
RouteMount = Callable[[web.Application], None]


@dataclass
class ServerHooks:
    """The server's hooks (all optional); see the module docstring."""

    routes: list[RouteMount] = field(default_factory=list)
    gate: Gate | None = None
    on_end: OnEnd | None = None

    def mount(self, app: web.Application) -> None:
        """Let every ``routes`` hook add its routes to ``app``."""
        for add in self.routes:
            add(app)
