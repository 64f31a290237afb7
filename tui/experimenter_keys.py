"""The experimenter's way into a running session: a chord, then a word typed after it (default Ctrl+X, then ``menu``).

Why not a chord alone: the old Ctrl+X Ctrl+E (also bash's edit-command-line chord) is two keys among the ~100 a
participant can hit, and 1,500 random keys opened the menu twice. After the lead chord the app waits for the word:
each matching letter is held back (it reaches no screen), any other key disarms the sequence and goes to the screen
as usual (a participant who hit the chord by chance loses no answer), and the word must be complete within
``window_s``. By chance that is one lead chord in ~100 keys followed by 4 exact letters: about 1 in 10^10 per key.

Configured once, as ``$BENCHLAB_EXPERIMENTER_KEYS`` (``benchlab.data.settings``, validated there).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from benchlab.data.settings import DEFAULT_EXPERIMENTER_KEYS, get_settings

#: The word must be typed within this time of the lead chord.
WINDOW_S = 5.0


class KeyVerdict(Enum):
    """What the app does with a key: give it to the screen, hold it back (part of the sequence), open the menu."""

    PASS = "pass"
    HOLD = "hold"
    OPEN = "open"


@dataclass(frozen=True)
class ExperimenterKeys:
    """A lead chord (a Textual key name: ``ctrl+x``, ``alt+k``, ``f12``) and the word typed after it."""

    lead: str
    word: str

    @classmethod
    def parse(cls, value: str) -> ExperimenterKeys:
        lead, word = value.lower().split()
        return cls(lead, word)

    @classmethod
    def from_settings(cls) -> ExperimenterKeys:
        return cls.parse(get_settings().experimenter_keys)

    @property
    def keys(self) -> tuple[str, ...]:
        """The Textual key names to press, in order (for tests and drivers)."""
        return (self.lead, *self.word)

    def describe(self) -> str:
        """For help texts: ``Ctrl+X, then type menu``."""
        lead = "+".join(part.capitalize() if len(part) > 1 else part.upper() for part in self.lead.split("+"))
        return f"{lead}, then type {self.word}"

    def terminal_bytes(self) -> bytes:
        """What a terminal sends for the sequence (ctrl+LETTER leads only; used by the pseudo-terminal harness)."""
        modifier, _, letter = self.lead.partition("+")
        if modifier != "ctrl" or len(letter) != 1 or not letter.isalpha():
            raise ValueError(f"no terminal bytes for {self.lead!r}")
        return bytes([ord(letter) - ord("a") + 1]) + self.word.encode()


DEFAULT_KEYS = ExperimenterKeys.parse(DEFAULT_EXPERIMENTER_KEYS)


class SequenceDetector:
    """Fed every key of a participant session (on the app, before any screen sees it); says what to do with it."""

    def __init__(self, keys: ExperimenterKeys, window_s: float = WINDOW_S) -> None:
        self.keys = keys
        self.window_s = window_s
        self._armed_at: float | None = None
        self._typed = 0

    @property
    def armed(self) -> bool:
        return self._armed_at is not None

    def reset(self) -> None:
        self._armed_at, self._typed = None, 0

    def feed(self, key: str, character: str | None, when: float) -> KeyVerdict:
        if self._armed_at is not None:
            if when - self._armed_at <= self.window_s and character is not None \
                    and character.lower() == self.keys.word[self._typed]:
                self._typed += 1
                if self._typed == len(self.keys.word):
                    self.reset()
                    return KeyVerdict.OPEN
                return KeyVerdict.HOLD
            self.reset()
        if key == self.keys.lead:
            self._armed_at, self._typed = when, 0
            return KeyVerdict.HOLD
        return KeyVerdict.PASS
