"""A server builds its participants' plans before they arrive (``tui/web/plan_ahead.py``): the plan opening takes
is the one opening would have built, used once, and never for options that changed since."""

from __future__ import annotations

import time
from pathlib import Path

from session_helpers import write_testset

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import open_session, plan_ahead, session_options
from benchlab.annotations.session.plan import SessionPlan
from benchlab.tui.web.plan_ahead import PlanAhead


def test_a_plan_built_ahead_is_the_plan_opening_builds_and_is_used_once(tmp_path: Path) -> None:
    task = registry().get("worldsense")
    testset = write_testset(tmp_path / "set", tuples_per_cell=3, sizes=(3,))
    values = {"dataset": str(testset), "practice": 1, "seed": 5, "no_instructions": True, "out": str(tmp_path / "o")}
    options = {"A": dict(values), "B": dict(values)}
    built: list[str] = []

    def build(pid: str) -> SessionPlan | None:
        built.append(pid)
        return plan_ahead(task, *session_options(task, {**options[pid], "participant": pid}))

    ahead = PlanAhead(build, lambda pid: repr(sorted(options[pid].items())))
    ahead.start(["A", "B"])
    deadline = time.monotonic() + 20
    while len(built) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    ahead.stop()
    planned = ahead.take("A")
    assert planned is not None and ahead.take("A") is None  # once
    session, plan = session_options(task, {**values, "participant": "A"})
    again = plan_ahead(task, session, plan)
    assert again is not None and (again.blocks, again.practice) == (planned.blocks, planned.practice)  # same seed
    runner = open_session(task, session, plan, planned=planned)
    try:
        assert runner.plan is planned and runner.files.plan.exists()  # taken, and saved as the session started
    finally:
        runner.close()
    options["B"]["practice"] = 0  # the participants file changed B's options: its plan is not used
    assert ahead.take("B") is None
    session, plan = session_options(task, {**values, "participant": "A"})
    assert plan_ahead(task, session, plan) is None  # A's session has started (its plan is saved): nothing ahead
