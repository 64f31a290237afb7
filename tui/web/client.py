"""What the participant's page tells the app (user agent, clock offset, painted onsets, key stamps), kept for the
trial screens.

The page stamps, with its own ``performance.now()``, the frame that shows a stimulus (``benchlab_onset``, for the
marker the app wrote right after that frame) and every keydown (``benchlab_key``, sent just before the key's
bytes). The driver's input thread stores them here; the trial screens read them on the main thread when the key
arrives. Both sides only add and look up (no iteration), so plain dicts under the GIL suffice; old entries are
dropped so that a long session keeps a small state.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from textual.message import Message

KEEP = 64  # onsets and key stamps kept (a trial needs its current onset and the key just pressed)


@dataclass(frozen=True)
class KeyStamp:
    """One keydown as the page saw it: the DOM key and its ``KeyboardEvent.timeStamp`` (page clock, ms)."""

    key: str
    page_ms: float


class ClientState:
    """The page's stamps and clock estimate; filled by the web driver, read by the trial screens."""

    def __init__(self) -> None:
        self.user_agent = ""
        self.reconnect = False
        #: page ``performance.now()`` minus the server's monotonic clock (ms); informative only.
        self.clock_offset_ms: float | None = None
        self.clock_rtt_ms: float | None = None
        self._onsets: OrderedDict[str, float] = OrderedDict()
        self._keys: OrderedDict[float, KeyStamp] = OrderedDict()

    def painted(self, mark: str, page_ms: float) -> None:
        """The page painted the frame carrying onset marker ``mark`` at ``page_ms``."""
        _put(self._onsets, mark, page_ms)

    def onset_ms(self, mark: str | None) -> float | None:
        """When the page painted the stimulus marked ``mark`` (``None``: not reported yet)."""
        return None if mark is None else self._onsets.get(mark)

    def stamp_key(self, event_time: float, stamp: KeyStamp) -> None:
        """The key event created at ``event_time`` (Textual's monotonic time) was pressed at ``stamp``."""
        _put(self._keys, event_time, stamp)

    def key_stamp(self, event_time: float) -> KeyStamp | None:
        """The page's stamp of the key event created at ``event_time`` (``None``: the page sent none)."""
        return self._keys.get(event_time)


def _put(table: OrderedDict[str, float] | OrderedDict[float, KeyStamp], key: object, value: object) -> None:
    table[key] = value  # type: ignore[index,assignment]
    while len(table) > KEEP:
        table.popitem(last=False)


class WebClientConnected(Message):
    """The server said who connected (``benchlab_client``): logged as ``connected`` in the events log."""

    def __init__(self, user_agent: str, reconnect: bool) -> None:
        super().__init__()
        self.user_agent = user_agent
        self.reconnect = reconnect


class WebDisconnected(Message):
    """The page is gone (stdin closed, or SIGTERM from the server): log ``disconnected`` and exit at once."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason
