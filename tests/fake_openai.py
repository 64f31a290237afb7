"""A fake OpenAI-compatible chat server on 127.0.0.1 for the bad-input tests: it answers HTTP 429 (rate limited)
to its first ``fail_first`` chat requests (or to all of them), then a fixed completion, or (``hang``) never
answers until the test ends; it counts the requests. It runs in a thread of the test process and is shut down
when the ``with`` block ends (a hanging request is released then, every wait bounded)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeServer:
    url: str
    fail_first: int  # -1: every request is rate limited
    answer: str
    hang: bool = False
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    released: threading.Event = field(default_factory=threading.Event)

    def next_is_limited(self) -> bool:
        with self.lock:
            self.requests += 1
            return self.fail_first < 0 or self.requests <= self.fail_first


def _handler(state: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            if state.hang:
                state.next_is_limited()  # counted
                state.released.wait(timeout=60)
                return
            if state.next_is_limited():
                self._json(429, {"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded",
                                           "code": "rate_limit_exceeded"}})
                return
            self._json(200, {"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": state.answer}}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

        def _json(self, code: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            if code == 429:
                self.send_header("retry-after", "0")
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def fake_openai(fail_first: int = 0, answer: str = "TRUE", hang: bool = False) -> Iterator[FakeServer]:
    """The server, rate limiting its first ``fail_first`` requests (``-1``: all of them), or hanging on every one."""
    state = FakeServer(url="", fail_first=fail_first, answer=answer, hang=hang)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.released.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
