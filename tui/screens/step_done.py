"""How a session screen says it is done: a message that bubbles to the app, which hands it to the session flow.

Consent, instructions, break, feedback and end screens know nothing about what comes next; the flow decides, and
ignores a message from a screen it has already left (e.g. the experimenter ended the session meanwhile) or a
second message from the same screen. Trial answers do not go this way (see ``TrialScreen._answer``).
"""

from __future__ import annotations

from textual.message import Message
from textual.screen import Screen


class StepDone(Message):
    """``screen`` is done; ``choice`` says how ("continue"; consent: "agree" or "decline")."""

    def __init__(self, screen: Screen[None], choice: str = "continue") -> None:
        super().__init__()
        self.screen = screen
        self.choice = choice
