"""What a native page gets instead of its session when the session cannot be opened here: "busy" (live on another
node: the page retries), "cannot start", or "you chose not to take part" for a link whose consent was declined
before (never asked again). Kept apart from :mod:`benchlab.tui.web.native` so the opening path reads on its own."""

from __future__ import annotations

import logging
from pathlib import Path

from aiohttp import web

from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import complete_events
from benchlab.tui.web import native_page
from benchlab.tui.web.page_socket import close_socket, send_json

log = logging.getLogger("benchlab.serve")


def declined_before(path: Path) -> bool:
    """The session's events log ends with a declined consent (and so the link's consent was declined)."""
    events = complete_events(path)
    return bool(events) and events[-1].get("event") == "declined"


async def cannot_open(ws: web.WebSocketResponse, pid: str, exc: BenchlabError) -> None:
    """The page of a session that could not be opened: live on another node (the page retries) or not at all."""
    if "are in use by" in str(exc):  # live on another node (or its lock not yet released): retry
        log.info("%s: the session is live elsewhere; the page retries", pid)
        await send_json(ws, ["busy"])
        await close_socket(ws, 4409, b"busy")
        return
    log.warning("%s: the session cannot start: %s", pid, exc)
    await send_json(ws, ["page", native_page.cannot_start_html()])
    await close_socket(ws, 1000, b"cannot start")


async def declined_page(ws: web.WebSocketResponse, pid: str) -> bool:
    """The consent was declined on an earlier visit: never asked again, nothing recorded now either."""
    log.info("%s: the link's consent was declined before; the page says so", pid)
    await send_json(ws, ["page", native_page.declined_html()])
    await close_socket(ws, 1000, b"declined")
    return True
