"""The HTML the server sends: the session page and the plain pages (not found, open elsewhere).

Everything is inline or served by this server (no web fonts, no CDN): a lab without internet and a participant
behind a strict network both get the same page.
"""

from __future__ import annotations

from html import escape

_STYLE = """
html,body{margin:0;height:100%;background:#111;color:#eee;font:16px/1.5 system-ui,sans-serif}
main.plain{max-width:40em;margin:15vh auto;padding:0 1em}
h1{font-size:1.6em;font-weight:600}
"""


def plain_page(title: str, message: str) -> str:
    """A small page with a heading and one paragraph (404, open in another tab ...)."""
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
            f"content='width=device-width,initial-scale=1'><meta name=robots content=noindex>"
            f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body><main class=plain>"
            f"<h1>{escape(title)}</h1><p>{escape(message)}</p></main></body></html>")


NOT_FOUND = plain_page("Page not found", "This link is not valid. Please check the link you were given.")
OPEN_ELSEWHERE = plain_page(
    "This session is open in another tab or window",
    "Your session is already open in another browser tab or window. Please continue there, or close it and "
    "reload this page.")


def session_page(title: str) -> str:
    """The participant's page: a terminal (xterm.js) filling the window, plus the status overlay."""
    return f"""<!doctype html>
<html lang=en><head><meta charset=utf-8>
<meta name=viewport content="width=device-width,initial-scale=1">
<meta name=robots content=noindex>
<title>{escape(title)}</title>
<link rel=stylesheet href="/static/xterm.css">
<link rel=stylesheet href="/static/page.css">
</head><body>
<div id=terminal aria-label="session"></div>
<div id=overlay role=status><div id=overlay-box><h1 id=overlay-title>Starting your session…</h1>
<p id=overlay-text>This takes a few seconds. Please keep this page open.</p></div></div>
<script src="/static/xterm.js"></script>
<script src="/static/addon-fit.js"></script>
<script src="/static/page.js"></script>
</body></html>
"""
