"""Simulated participants: pilot a study design through the real engine and recording path, without a person.

Like jsPsych's simulation mode, a simulated run writes files with exactly the structure of a real session (marked
``simulated`` in every record). Three answerers with known expected scores check the whole chain down to the
scorer: ``oracle`` answers correctly (100 %), ``random`` picks uniformly (about 50 % with two options, and a bias
of about +1/3 on three-option problems whose third option is "cannot tell"), ``biased`` always picks the first
option (TRUE / POSSIBLE / (1)): exactly 50 % accuracy with a bias of +1 on every problem.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from benchlab.annotations.session.runner import ResponseTiming, SessionRunner, Stage, wall_clock_now
from benchlab.annotations.task_face import POLICIES

#: Other names of a policy, where a task names it by what it does (``always-a``, with options A/B, is ``biased``).
ALIASES = {"always-a": "biased"}


class SimulatedParticipant:
    """Chooses answers by a policy and draws plausible response times (log-normal, median ``median_rt_s``)."""

    def __init__(self, policy: str, seed: int = 0, median_rt_s: float = 6.0) -> None:
        policy = ALIASES.get(policy, policy)
        if policy not in POLICIES:
            raise ValueError(f"unknown simulated participant {policy!r}; choose one of {', '.join(POLICIES)}")
        self.policy = policy
        self.rng = random.Random(f"benchlab/simulate/{policy}/{seed}")
        self.median_rt_s = median_rt_s

    def choose(self, options: tuple[str, ...], gold: str | None) -> str:
        if self.policy == "oracle":
            if gold is None or gold not in options:
                raise ValueError("the oracle needs the gold answer of every item")
            return gold
        if self.policy == "biased":
            return options[0]
        return self.rng.choice(options)

    def rt_s(self) -> float:
        return self.rng.lognormvariate(math.log(self.median_rt_s), 0.5)


def simulate_session(
    runner: SessionRunner, participant: SimulatedParticipant, *, delay_s: float = 0.0,
    on_response: Callable[[SessionRunner], None] | None = None,
) -> SessionRunner:
    """Run an opened session to its end: accept consent, read instructions, answer, continue after breaks.

    ``delay_s`` waits that long before each answer (real time), so a pilot can be watched or killed mid-way.
    Recorded times are simulated: onset now, response = onset + a drawn response time.
    """
    while runner.stage is not Stage.END:
        if runner.stage is Stage.CONSENT:
            runner.accept_consent()
        elif runner.stage is Stage.INSTRUCTIONS:
            runner.finish_instructions()
        elif runner.stage is Stage.BREAK:
            runner.continue_after_break()
        else:
            step = runner.current
            onset = time.monotonic()
            if delay_s > 0:
                time.sleep(delay_s)
            answer = participant.choose(runner.options(), runner.task_session.gold(step.item_id))
            rt = participant.rt_s()
            runner.respond(answer, ResponseTiming(
                onset_mono=onset, response_mono=onset + rt, wall_clock=wall_clock_now(), requested_mono=onset,
                input="simulated",
            ))
            if on_response is not None:
                on_response(runner)
    return runner
