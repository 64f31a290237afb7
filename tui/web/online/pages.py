"""The online study's participant pages, plain HTML with no script but the copy button: full, paused, already
taken part, saving, completion (code + copy button, optional redirect) and timed out. Every text is escaped."""

from __future__ import annotations

from html import escape

STYLE = ("body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}"
         "code{font-size:1.4rem;padding:.2rem .5rem;border:1px solid #888;border-radius:4px}"
         "button{font-size:1rem;padding:.4rem .9rem;margin-left:.5rem}table{border-collapse:collapse}"
         "td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}")


def page(title: str, body: str, *, refresh: str | None = None) -> str:
    """A whole page (``refresh``: a ``<meta http-equiv=refresh>`` content, e.g. ``"3"`` or ``"3;url=..."``)."""
    meta = f'<meta http-equiv="refresh" content="{escape(refresh)}">' if refresh else ""
    return ("<!doctype html><html lang=en><head><meta charset=utf-8>"
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"{meta}<title>{escape(title)}</title><style>{STYLE}</style></head>"
            f"<body><main><h1>{escape(title)}</h1>{body}</main></body></html>")


def message(title: str, text: str) -> str:
    return page(title, f"<p>{escape(text)}</p>")


RETURN = ("Please return the study on the recruitment site (on Prolific: \u201cReturn submission\u201d) so the place "
          "goes to someone else; you will not be penalised.")


def full(reason: str) -> str:
    return page("This study is full", f"<p>Sorry, {escape(reason)}: there is no place left.</p><p>{RETURN}</p>")


def paused() -> str:
    return page("Recruitment is paused", "<p>The study is paused for a moment. Nothing was recorded; please try "
                "again later with the same link.</p>")


def bad_link(reason: str) -> str:
    return page("This link cannot start the study", f"<p>{escape(reason)}.</p>")


def saving() -> str:
    return page("Saving your answers", "<p>Your answers are being saved. This page refreshes by itself; your "
                "completion code appears once your data are safely stored.</p>", refresh="3")


def completion(outcome: str, code: str | None, redirect: str | None, *, already: bool = False) -> str:
    """The completion page: the code as text with a copy button, and the redirect (followed after a moment)."""
    title, body = completion_body(outcome, code, redirect, already=already)
    return page(title, body, refresh=f"5;url={redirect}" if redirect and not already else None)


def completion_body(outcome: str, code: str | None, redirect: str | None, *,
                    already: bool = False) -> tuple[str, str]:
    """(title, body HTML) of the completion page, for a server that frames its own pages."""
    titles = {"completed": "Thank you: you have finished", "declined": "You did not take part",
              "screened_out": "This study cannot run on your device", "failed_attention": "The session has ended",
              "withdrew": "You have withdrawn", "timed_out": "Time is up"}
    lead = {"timed_out": "<p>The time allowed for this study has passed; your answers so far are saved.</p>",
            "declined": "<p>You did not consent, so nothing of yours was recorded.</p>"}.get(outcome, "")
    title = "You have already taken part" if already else titles.get(outcome, "The session has ended")
    body = lead
    if already:
        body = "<p>You have already taken part in this study (one session per person).</p>" + body
    if code:
        body += (f'<p>Your completion code: <code id="code">{escape(code)}</code>'
                 '<button id="copy" type="button">Copy</button></p>'
                 "<script>document.getElementById('copy').onclick=function(){var c=document.getElementById('code')"
                 ".textContent;if(navigator.clipboard){navigator.clipboard.writeText(c)}var b=this;"
                 "b.textContent='Copied';};</script>")
    if redirect:
        body += f'<p><a id="continue" href="{escape(redirect)}">Continue to the recruitment site</a></p>'
    if not code and not redirect:
        body += "<p>You may close this page.</p>"
    return title, body
