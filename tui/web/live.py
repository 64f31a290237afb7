"""One participant's session on the native page, inside the server process: the views the page shows and what each
message of the page does to the :class:`~benchlab.annotations.session.runner.SessionRunner`.

Nothing here touches the network: :mod:`benchlab.tui.web.native` feeds messages in and sends the views out. Every
method that writes (a record, an event) is synchronous and is run by the caller in a thread (fsync off the event
loop); the caller serialises them per session, and sends the next view only after the write returned.

Validity rules (issue 18):

* a view is shown with a sequence number; a message for another number (a replayed, reordered or stale one, a
  page that answers a trial no longer on screen) changes nothing;
* an answer counts only after the page stamped the answer view's onset, and its page-side RT must be >= 0 and no
  longer than the time since the server sent the view (a forged ``client_rt_ms`` is refused);
* a trial shown again after a reload or reconnect is marked ``interrupted`` with how often (``interruptions``) and
  its first onset; the RT is from the onset of the showing that was answered;
* tab hidden time, window blurs and blocked clipboard/context-menu attempts are logged as events and summed into the
  trial's record; keys pressed before onset (or during an outage, reported on reconnect) are counted, never answers.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from html import escape
from typing import Any

from benchlab.annotations.session.plan import PlannedStep
from benchlab.annotations.session.runner import (
    BreakKind,
    EndReason,
    Feedback,
    ResponseTiming,
    SessionRunner,
    Stage,
    wall_clock_now,
)
from benchlab.tui.web.markup import markdown
from benchlab.tui.web.native_page import declined_html
from benchlab.tui.web.web_trials import Stamp, WebTrial, WebView, web_trial

#: Slack for a page's RT against the server's own bound (timer granularity of ``event.timeStamp``).
RT_SLACK_MS = 5.0
#: Rounding slack of a seen share (the page snaps the last couple of pixels to the end already).
SEEN_SLACK = 1e-3
CONDUCT_EVENTS = ("hidden", "visible", "blur", "focus", "copy", "cut", "paste", "contextmenu", "early_key")


class Refused(Exception):
    """A message that breaks the protocol on purpose (a forged time): the connection is closed, nothing written."""


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    v = float(value)
    return v if v == v and abs(v) < 1e12 else None  # no NaN, no absurd values


@dataclass
class Visit:
    """One showing of a view: when it was sent, its onset (server arrival and page stamp)."""

    seq: int
    sent_mono: float
    onset_mono: float | None = None
    client_onset_ms: float | None = None


@dataclass
class TrialRun:
    """The trial on screen (or about to be): its web renderer and what the engine stamps across its showings."""

    step: PlannedStep
    trial: WebTrial
    view: WebView
    visit: Visit | None = None
    shown_answer_views: int = 0
    first_onset_mono: float | None = None
    interruptions: int = 0
    ignored_keys: int = 0
    hidden_ms: float = 0.0
    blurs: int = 0
    clipboard: int = 0
    pending_reshow: bool = False


@dataclass
class LiveSession:
    """A participant's session on the native page (see the module docstring)."""

    participant: str
    #: The opened runner; ``None`` while a new session is still being opened (its plan built) in a worker: only
    #: its consent is shown meanwhile, and the caller awaits :attr:`opening` before passing on an answer to it.
    opened: SessionRunner | None
    kind: str  # the task's trial kind
    seq: int = 0
    page: int = 0  # instruction page
    feedback: Feedback | None = None
    trial: TrialRun | None = None
    current: dict[str, Any] = field(default_factory=dict)  # the view last sent
    offset_ms: float | None = None
    rtt_ms: float | None = None
    ended_reported: bool = False
    end_extra: dict[str, Any] = field(default_factory=dict)  # what an on_end hook added to the end page
    #: Events this session logged before this server opened it (a restart): trial showings to replay.
    history: list[dict[str, Any]] = field(default_factory=list)
    #: Events the last message produced, for the caller to log (fsynced) after it.
    notes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: The consent shown while :attr:`opened` is ``None``, and the opening under way (it sets :attr:`opened`).
    consent: str = ""
    opening: asyncio.Future[SessionRunner | None] | None = None

    @property
    def runner(self) -> SessionRunner:
        """The opened runner (only once :attr:`opening` is done: every step after consent needs the plan)."""
        if self.opened is None:
            raise RuntimeError(f"the session of {self.participant} is still being opened")
        return self.opened

    @property
    def started(self) -> bool:
        """Its plan is saved (consent given): page events are logged from now on."""
        return self.opened is not None and self.opened.files.plan.exists()

    # -- views -----------------------------------------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The view to show now (a new sequence number each time: a re-sent view is a new showing)."""
        self.seq += 1
        r = self.opened
        v: dict[str, Any]
        if self.feedback is not None:
            fb = self.feedback
            cls = "correct" if fb.correct else "incorrect"
            v = {"kind": "feedback", "html": f"<p class=\"feedback {cls}\" role=status>{escape(fb.message)}</p>"
                 + _continue_button("Continue"), "keys": _continue_keys()}
        elif r is None or r.stage is Stage.CONSENT:
            consent = self.consent if r is None else r.text.consent
            html = (f"<div class=doc>{markdown(consent or '', top=1)}</div><div class=actions>"
                    "<button type=button class=primary data-act=accept>I agree</button>"
                    "<button type=button class=secondary data-act=decline>I do not agree</button></div>")
            v = {"kind": "consent", "html": html, "keys": {}}
        elif r.stage is Stage.INSTRUCTIONS:
            pages = r.text.instructions
            n = len(pages)
            last = self.page >= n - 1
            label = "Start" if last else "Next"
            count = f"<p class=count>Page {self.page + 1} of {n}</p>" if n > 1 else ""
            keys = _continue_keys("next")
            if not last:
                keys["arrowright"] = ["next", ""]
            back = ""
            if self.page > 0:  # as the terminal's instructions: back with the left arrow (or the button)
                keys["arrowleft"] = ["back", ""]
                back = ("<button type=button class=secondary data-act=back>Back "
                        "<span class=key aria-hidden=true>←</span></button>")
            v = {"kind": "instructions", "html": f"<div class=doc>{markdown(pages[self.page])}</div>{count}"
                 + _continue_button(label, act="next", before=back), "keys": keys}
        elif r.stage is Stage.BREAK:
            if r.break_kind is BreakKind.PRACTICE_DONE:
                text = "<h1>Practice finished</h1><p>The real questions start now. Take your time.</p>"
            else:
                text = (f"<h1>Short break</h1><p>Block {r.next_block - 1} of {r.n_blocks} is done. Rest for a "
                        "moment, then continue when you are ready.</p>")
            v = {"kind": "break", "html": text + _continue_button("Continue"), "keys": _continue_keys()}
        elif r.stage is Stage.TRIAL:
            run = self._trial_run()
            view = run.trial.view()
            run.view = view
            if run.pending_reshow:
                run.pending_reshow = False
                if run.first_onset_mono is not None:
                    run.interruptions += 1
            run.visit = Visit(self.seq, time.monotonic())
            step = run.step
            progress = (f"Practice {step.index + 1} of {r.n_practice}" if step.practice
                        else f"Question {r.recorded_main + 1} of {r.n_main}")
            v = {"kind": "trial", "phase": view.phase, "html": view.html,
                 "keys": {k: list(a) for k, a in view.keys.items()}, "stimulus": view.phase != "delay",
                 "answers": view.answers, "min_ms": view.min_ms, "max_ms": view.max_ms, "auto_ms": view.auto_ms,
                 "track_scroll": view.track_scroll, "min_seen": view.min_seen, "progress": progress,
                 "done": r.recorded_main, "total": r.n_main}
        else:
            v = {"kind": "end", "html": self._end_html(), "keys": {}, **self.end_extra}
        v["seq"] = self.seq
        self.current = v
        return v

    def _trial_run(self) -> TrialRun:
        step = self.runner.current
        if self.trial is None or self.trial.step is not step:
            trial = web_trial(self.kind, self.runner, step)
            self.trial = TrialRun(step, trial, trial.view())
            self._replay(self.trial)
        return self.trial

    def _replay(self, run: TrialRun) -> None:
        """A trial already shown before the server restarted (its ``trial_onset`` events in the log): marked as
        re-shown, and a phased trial continues where it was (a SORT passage is not shown again after the question;
        its reading time counts until the next event logged after each showing)."""
        log = self.history
        mine = [i for i, e in enumerate(log) if e.get("item_id") == run.step.item_id
                and e.get("event") in ("trial_onset", "trial_continue")]
        for n, i in enumerate(mine):
            e = log[i]
            mono = _num(e.get("mono"))
            if e["event"] == "trial_onset":
                if run.first_onset_mono is None:
                    run.first_onset_mono = mono
                logged = e.get("interruptions")
                if isinstance(logged, int) and not isinstance(logged, bool):
                    run.interruptions = max(run.interruptions, min(logged, 10_000))
                nxt = mine[n + 1] if n + 1 < len(mine) else None
                if nxt is not None and log[nxt]["event"] == "trial_continue":
                    continue
                end = _num(log[i + 1].get("mono")) if i + 1 < len(log) else mono
                run.trial.left(Stamp(mono, end))
                run.pending_reshow = True
            else:
                start = next((_num(log[j].get("mono")) for j in reversed(mine[:n]) if log[j]["event"] == "trial_onset"),
                             None)
                run.trial.proceed(Stamp(start, mono, 0.0, _num(e.get("client_ms")),
                                        timed_out=bool(e.get("timed_out")), seen_share=_num(e.get("seen"))))

    def _end_html(self) -> str:
        r = self.runner
        if r.end_reason is EndReason.DECLINED:
            return declined_html()
        if r.end_reason is EndReason.COMPLETED:
            return ("<h1>Thank you!</h1><p>All your answers are saved. You may now close this tab.</p>")
        return ("<h1>The session has ended</h1><p>Your answers so far are saved. You may now close this tab.</p>")

    @property
    def ended(self) -> bool:
        return self.opened is not None and self.opened.stage is Stage.END

    # -- messages (each returns whether a new view must be sent) ---------------------------------------------

    def onset(self, msg: dict[str, Any], now: float) -> None:
        """The page painted view ``seq`` (first ``requestAnimationFrame`` after it was in the page)."""
        run = self.trial
        t = _num(msg.get("t"))
        if run is None or run.visit is None or msg.get("seq") != run.visit.seq or run.visit.onset_mono is not None:
            return
        run.visit.onset_mono, run.visit.client_onset_ms = now, t
        if run.first_onset_mono is None:
            run.first_onset_mono = now
        self.notes.append(("trial_onset", {"item_id": run.step.item_id, "practice": run.step.practice,
                                           "phase": run.view.phase, "client_onset_ms": t,
                                           "interruptions": run.interruptions}))
        if run.view.answers:
            run.shown_answer_views += 1

    def conduct(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        """A hidden/blur/clipboard/early-key note of the page: summed into the trial on screen; the event to log."""
        what = msg.get("what")
        if what not in CONDUCT_EVENTS:
            return None
        run = self.trial if self.opened is not None and self.opened.stage is Stage.TRIAL else None
        on_trial = run is not None and run.visit is not None and msg.get("seq") == run.visit.seq
        if run is not None and on_trial:
            if what == "visible":
                run.hidden_ms += max(0.0, min(_num(msg.get("hidden_ms")) or 0.0, 86_400_000.0))
            elif what == "blur":
                run.blurs += 1
            elif what in ("copy", "cut", "paste", "contextmenu"):
                run.clipboard += 1
            elif what == "early_key":
                run.ignored_keys += 1
        event: dict[str, Any] = {"what": what, "on_trial": on_trial}
        if run is not None and on_trial:
            event.update(item_id=run.step.item_id, practice=run.step.practice)
        if what == "visible":
            event["hidden_ms"] = _num(msg.get("hidden_ms"))
        return event

    def outage_keys(self, count: int) -> None:
        """Keys the page took during an outage (reported on reconnect): counted as ignored keys of the trial."""
        if self.trial is not None and count > 0:
            self.trial.ignored_keys += min(count, 10_000)

    def act(self, msg: dict[str, Any], now: float) -> bool:
        """A button or key of the page. Runs the runner's step (writes: call it in a thread); ``True`` when a new
        view must be shown. Raises :class:`Refused` for a forged time."""
        if msg.get("seq") != self.seq:
            return False  # not the view on screen: stale, replayed or reordered
        act, kind = msg.get("act"), self.current.get("kind")
        r = self.runner
        if kind == "feedback" and act == "continue":
            self.feedback = None
            return True
        if kind == "consent" and act in ("accept", "decline"):
            if r.stage is not Stage.CONSENT:
                return True  # opened meanwhile as a resumed session (started from another page): show where it is
            if act == "accept":
                r.accept_consent()
            else:
                # only that it was declined (no plan, no answers): a reopened link says so instead of asking again,
                # and the Sessions screen shows it (as the terminal page logs it)
                r.log_event("declined", task=r.plan.task)
                r.decline_consent()
            return True
        if kind == "instructions" and act == "back":
            if self.page == 0:
                return False
            self.page -= 1
            return True
        if kind == "instructions" and act == "next":
            if self.page < len(r.text.instructions) - 1:
                self.page += 1
            else:
                r.finish_instructions()
            return True
        if kind == "break" and act == "continue":
            r.continue_after_break()
            return True
        if kind == "trial" and self.trial is not None:
            return self._trial_act(self.trial, str(act), msg, now)
        return False

    def _trial_act(self, run: TrialRun, act: str, msg: dict[str, Any], now: float) -> bool:
        visit, view = run.visit, run.view
        if visit is None or visit.onset_mono is None or visit.client_onset_ms is None:
            return False  # before onset: the page does not send these; a forged one changes nothing
        t = _num(msg.get("t"))
        if t is None:
            raise Refused("an action without its time")
        client_ms = t - visit.client_onset_ms
        bound = (now - visit.sent_mono) * 1000.0 + RT_SLACK_MS
        if client_ms < -RT_SLACK_MS or client_ms > bound:
            raise Refused(f"a page time of {client_ms:.1f} ms outside 0..{bound:.1f} ms")
        client_ms = max(0.0, client_ms)
        if act == "continue" and not view.answers and view.auto_ms is None:
            timed_out = bool(msg.get("timed_out")) and view.max_ms is not None
            if not timed_out and client_ms + RT_SLACK_MS < view.min_ms:
                return False  # too early (the page's button is disabled until then)
            seen = _num(msg.get("seen"))
            if not timed_out and view.min_seen > 0 and (seen is None or seen + SEEN_SLACK < view.min_seen):
                return False  # not enough of the passage seen yet (the page's button waits for it too)
            stamp = Stamp(visit.onset_mono, now, visit.client_onset_ms, t, timed_out=timed_out, seen_share=seen)
            run.trial.proceed(stamp)
            self.notes.append(("trial_continue", {"item_id": run.step.item_id, "phase": run.view.phase,
                                                  "client_ms": round(client_ms, 3), "timed_out": timed_out,
                                                  "seen": stamp.seen_share}))
            return True
        if act != "answer" or not view.answers:
            return False
        value = msg.get("value")
        if not isinstance(value, str) or value not in self.runner.options():
            return False
        base = ResponseTiming(
            onset_mono=visit.onset_mono, response_mono=now, wall_clock=wall_clock_now(),
            requested_mono=visit.sent_mono, handler_mono=time.monotonic(), input=_input_kind(msg.get("input")),
            ignored_keys=run.ignored_keys, onset_source="page_raf", interrupted=run.interruptions > 0,
            first_onset_mono=run.first_onset_mono if run.interruptions > 0 else None,
            client_rt_ms=round(client_ms, 3), client_onset_ms=visit.client_onset_ms, client_key_ms=t,
            client_clock_offset_ms=self.offset_ms, interruptions=run.interruptions, hidden_ms=round(run.hidden_ms, 3),
            blurs=run.blurs, clipboard_attempts=run.clipboard)
        timing = run.trial.timing(base)
        self.feedback = self.runner.respond(value, timing)
        self.trial = None
        return True

    def auto_proceed(self, seq: int) -> bool:
        """The server's delay of view ``seq`` is over: the trial moves on (``True``) if that view is still shown."""
        run = self.trial
        if run is None or run.visit is None or run.visit.seq != seq or self.seq != seq:
            return False
        run.trial.proceed(Stamp(run.visit.onset_mono, time.monotonic()))
        return True

    def page_left(self, last_seen: float) -> None:
        """The page went away (closed, reloaded, lost): the trial view on screen ends there and is shown again."""
        run = self.trial
        if run is None or run.visit is None:
            return
        visit = run.visit
        run.visit = None
        run.trial.left(Stamp(visit.onset_mono, max(last_seen, visit.onset_mono or last_seen), visit.client_onset_ms))
        run.pending_reshow = True


def _continue_button(label: str, act: str = "continue", before: str = "") -> str:
    return (f"<div class=actions>{before}<button type=button class=primary data-act={act}>{escape(label)} "
            "<span class=key aria-hidden=true>Enter</span></button></div>")


def _continue_keys(act: str = "continue") -> dict[str, list[str]]:
    return {"enter": [act, ""], " ": [act, ""]}


def _input_kind(value: Any) -> str:
    return value if value in ("key", "mouse", "touch", "pen") else "key"
