"""Plans built before the participants arrive: a server's links are known at start, so one background thread
builds each new participant's plan while the server waits, and opening a link only takes it.

Why: planning a session is the CPU-heavy part of opening one (a WorldSense plan on the full test set shuffles every
cell's 40,000 tuples: ~15 ms of CPU), and 50 links opened in the same second would queue for a second of CPU on a
2-core machine. A plan built ahead is the plan opening would have built (same options, same seed rule: the fixed
``--seed`` or a fresh random one recorded in the plan); nothing is written until the participant consents, as
before. A participant whose options changed since (the participants file was edited) or who arrives before the
thread reached them gets a plan built at opening, as without this.

The thread runs at the lowest CPU priority (``nice`` 19, Linux's per-thread priority), so the answers of
participants already in a session go first.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence

from benchlab.annotations.session.plan import SessionPlan

log = logging.getLogger("benchlab.serve")

#: Built plans kept at most (a participants file of thousands does not hold thousands of plans in memory).
MAX_PLANS = 2000


class PlanAhead:
    """Plans of participants who have not started yet, by participant, each with the options it was built for."""

    def __init__(self, build: Callable[[str], SessionPlan | None], options_key: Callable[[str], object]) -> None:
        self._build = build  # pid -> the plan a new session would get (None: started already)
        self._key = options_key  # pid -> what its plan depends on (its options)
        self._plans: dict[str, tuple[object, SessionPlan]] = {}
        self._taken: set[str] = set()
        self._building: str | None = None  # the participant whose plan the thread is building now
        self._lock = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, participants: Sequence[str]) -> None:
        """Build the plans of ``participants`` in a background thread (in order: links are usually opened so)."""
        self._thread = threading.Thread(target=self._run, args=(list(participants),), name="benchlab-plan-ahead",
                                        daemon=True)
        self._thread.start()

    def take(self, pid: str) -> SessionPlan | None:
        """The plan built ahead for ``pid`` if its options are still the same (once: a later opening builds its
        own, as a resumed session loads its saved plan anyway)."""
        with self._lock:
            # being built right now: wait for it rather than build it a second time beside it
            self._lock.wait_for(lambda: self._building != pid, timeout=2.0)
            self._taken.add(pid)
            found = self._plans.pop(pid, None)
        if found is None:
            return None
        key, plan = found
        return plan if key == self._key(pid) else None

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)

    def _run(self, participants: list[str]) -> None:
        with contextlib.suppress(OSError, AttributeError):  # lowest priority for this thread only (Linux)
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        started, built = time.monotonic(), 0
        for pid in participants:
            if self._stop.is_set() or built >= MAX_PLANS:
                break
            with self._lock:
                if pid in self._taken:
                    continue
                self._building = pid
            plan = None
            try:
                key, plan = self._key(pid), self._build(pid)
            except Exception as exc:  # a participant whose session cannot open: opening says so to the page
                log.info("%s: no plan built ahead (%s)", pid, exc)
            finally:
                with self._lock:
                    if plan is not None and pid not in self._taken:
                        self._plans[pid] = (key, plan)
                        built += 1
                    self._building = None
                    self._lock.notify_all()
        log.info("planned ahead: %d sessions in %.1f s", built, time.monotonic() - started)
