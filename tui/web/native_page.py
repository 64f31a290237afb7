"""The native participant page's HTML: the page shell (the views arrive over the WebSocket) and the pages shown
instead of a session (device check, refused by the online gate, cannot start, taken over in another tab).

Everything is served by this server (``/static/native.css``, ``/static/native.js``): no font, script or style
from elsewhere. The tab title is the study's title (``benchlab serve --title``), never the benchmark's name.
"""

from __future__ import annotations

from html import escape

from benchlab.tui.web.hooks import Refusal


def session_page(title: str) -> str:
    """The page shell: a header, the view area, the "Reconnecting…" cover."""
    return f"""<!doctype html>
<html lang=en><head><meta charset=utf-8>
<meta name=viewport content="width=device-width,initial-scale=1">
<meta name=robots content=noindex>
<title>{escape(title)}</title>
<link rel=stylesheet href="/static/native.css">
</head><body>
<header class=top><span class=study>{escape(title)}</span><span id=progress aria-live=polite></span></header>
<main id=view tabindex=-1><p class=wait>Loading your session…</p></main>
<div id=cover role=alertdialog aria-modal=true aria-labelledby=cover-title hidden>
<div class=box><h1 id=cover-title>Reconnecting…</h1>
<p id=cover-text>The connection to the server was lost. Please wait; your answers so far are saved.</p></div></div>
<script src="/static/native.js"></script>
</body></html>
"""


def taken_over_html() -> str:
    return ("<h1>Continued in another tab</h1><p>This session is now open in another tab or window. Please continue "
            "there. To continue here instead, reload this page.</p>")


def device_html(why: str, rule: object) -> str:
    if why == "computer":
        return ("<h1>Please use a computer</h1><p>This study needs a computer with a keyboard and a mouse or "
                "trackpad. Please open the same link on a computer. Nothing has been recorded.</p>")
    return ("<h1>Please use a larger screen</h1><p>This study needs a larger screen than this one. Please open the "
            "same link on a computer or a tablet. Nothing has been recorded.</p>")


def declined_html() -> str:
    """The end of a declined consent, and what a link whose consent was declined shows when opened again."""
    return ("<h1>Thank you</h1><p>You chose not to take part. Nothing was recorded. You may now close this "
            "tab.</p>")


def refusal_html(refusal: Refusal) -> str:
    if refusal.html is not None:
        return refusal.html
    return f"<h1>{escape(refusal.title)}</h1><p>{escape(refusal.message)}</p>"


def cannot_start_html() -> str:
    return ("<h1>The session cannot start</h1><p>Something is wrong with this session on our side. Please "
            "contact the researcher who gave you the link. Nothing has been recorded.</p>")
