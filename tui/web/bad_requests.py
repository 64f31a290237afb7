"""One line, not a traceback, in ``serve.log`` for a malformed request (a URL over 8 KB, protocol garbage).

aiohttp logs a request it cannot parse at ERROR with the parser's traceback; a scanner or a pasted overlong link
then fills the server log with tracebacks that look like a bug in benchlab. The request was already answered with
400; this filter keeps the record and drops the traceback, saying what was wrong in one line.
"""

from __future__ import annotations

import logging

from aiohttp.http_exceptions import HttpProcessingError


class BadRequestLines(logging.Filter):
    """Rewrites aiohttp's "Error handling request" records caused by a malformed request into one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            message = " ".join(str(exc.message).split())
            record.msg = f"{record.getMessage()}: malformed request refused with {exc.code} ({message[:160]})"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True
