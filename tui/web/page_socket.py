"""The page's side of a participant's WebSocket: control messages, closing (a page that stops reading is cut off,
not waited for), the message rate limit, and the numbers a page sends (sizes clamped, non-numbers dropped)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from aiohttp import web


class TokenBucket:
    """A token bucket: ``rate`` messages a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst, self.level, self.at = rate, burst, burst, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level < 1:
            return False
        self.level -= 1
        return True


async def send_json(ws: web.WebSocketResponse, data: Any) -> None:
    """A control message to the page; a page that does not take it within 5 s is dropped."""
    if not ws.closed:
        try:
            await asyncio.wait_for(ws.send_str(json.dumps(data)), 5.0)
        except TimeoutError:
            abort_socket(ws)
        except (ConnectionError, RuntimeError):
            pass


async def close_socket(ws: web.WebSocketResponse, code: int = 1000, message: bytes = b"") -> None:
    """Close the WebSocket; a page that does not read is cut off instead of holding the close forever."""
    if ws.closed:
        return
    try:
        await asyncio.wait_for(ws.close(code=code, message=message), 3.0)
    except TimeoutError:
        abort_socket(ws)
    except (ConnectionError, RuntimeError):
        pass


def abort_socket(ws: web.WebSocketResponse) -> None:
    req = ws._req
    transport = req.transport if req is not None else None
    if transport is not None:
        transport.abort()


async def wait_closed(ws: web.WebSocketResponse) -> None:
    """Returns when the page goes away while queued (messages meanwhile are ignored: keys are not ready yet)."""
    async for _ in ws:
        pass


def page_size(value: Any, default: int = 80) -> int:
    try:
        return max(10, min(400, int(value)))
    except (TypeError, ValueError):
        return default


def page_number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
