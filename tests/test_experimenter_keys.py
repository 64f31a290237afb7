"""The experimenter's menu opens only on its key sequence (a chord, then a typed word), never by chance: 10,000 random
keys on participant screens (ctrl/alt/function keys and the sequence's own first key and near misses included) never
open it and never skip a trial as "experimenter" (issue 13, defect 8: the old Ctrl+X Ctrl+E opened twice in 1,500)."""

from __future__ import annotations

import json
import random
import string
import time
from pathlib import Path
from typing import Any

import pytest
from session_helpers import write_testset
from textual import events

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.data.errors import BenchlabError
from benchlab.data.settings import get_settings, reset_settings
from benchlab.tui.app import BenchlabApp
from benchlab.tui.experimenter_keys import DEFAULT_KEYS, ExperimenterKeys, KeyVerdict, SequenceDetector
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen
from benchlab.tui.screens.experimenter_menu import ExperimenterMenu
from benchlab.tui.screens.size_guard import SizeGuardedScreen
from benchlab.tui.textual_private import app_driver

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}


def feed(detector: SequenceDetector, keys: list[str], start: float = 0.0, step: float = 0.1) -> list[KeyVerdict]:
    return [detector.feed(k, k if len(k) == 1 else None, start + i * step) for i, k in enumerate(keys)]


def test_the_sequence_and_its_near_misses() -> None:
    detector = SequenceDetector(DEFAULT_KEYS)
    assert feed(detector, ["ctrl+x", *"menu"])[-1] is KeyVerdict.OPEN
    # The old chord, the word alone, a wrong letter: nothing opens, and the key that breaks the sequence goes on.
    assert KeyVerdict.OPEN not in feed(detector, ["ctrl+x", "ctrl+e", *"menu", "ctrl+x", "m", "e", "1", "n", "u"])
    assert feed(detector, ["ctrl+x", "m", "2"]) == [KeyVerdict.HOLD, KeyVerdict.HOLD, KeyVerdict.PASS]
    # Too slow: the word must follow the chord within the window.
    assert KeyVerdict.OPEN not in feed(detector, ["ctrl+x", *"menu"], start=100.0, step=2.0)
    assert feed(detector, ["ctrl+x", *"MENU"])[-1] is KeyVerdict.OPEN  # caps lock on


@pytest.mark.parametrize("value", ["ctrl+e", "ctrl+x ctrl+e", "x menu", "ctrl+m menu", "ctrl+x me", "f12 stop now"])
def test_a_single_chord_or_a_short_word_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("BENCHLAB_EXPERIMENTER_KEYS", value)
    reset_settings()
    with pytest.raises(BenchlabError, match="EXPERIMENTER_KEYS must be a chord"):
        get_settings()


async def test_the_keys_come_from_the_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BENCHLAB_EXPERIMENTER_KEYS", "F12 Lab7")
    reset_settings()
    testset = write_testset(tmp_path / "ws", tuples_per_cell=2, sizes=(3,), problems=("Infer.trivial",))
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant="P01", out=str(tmp_path / "out"), seed=1,
                             practice=0, no_instructions=True)
    app = BenchlabApp(session=(runner, task), **FAST)
    assert app.experimenter_keys == ExperimenterKeys("f12", "lab7")
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press(*DEFAULT_KEYS.keys)
        await pilot.pause()
        assert isinstance(app.screen, ChoiceTrialScreen)
        await pilot.press("f12", *"lab7")
        await pilot.pause()
        assert isinstance(app.screen, ExperimenterMenu)


def _character(key: str) -> str | None:
    """What Textual's key parser gives as the character: ctrl+LETTER is a control character, F/alt keys none."""
    named = {"enter": "\r", "space": " ", "tab": "\t", "escape": "\x1b", "backspace": "\x7f"}
    if len(key) == 1:
        return key
    if key.startswith("ctrl+") and len(key) == 6:
        return chr(ord(key[-1]) - ord("a") + 1)
    return named.get(key)


def mash_keys(rng: random.Random, n: int) -> list[str]:
    """Random keys of a participant mashing the keyboard, with the sequence's own first key and near misses often."""
    pool = [*string.ascii_letters, *string.digits, *"!\"#$%&'()*+,-./:;<=>?@[]^_`{|}~",
            "enter", "space", "tab", "escape", "backspace", "delete", "insert", "up", "down", "left", "right",
            "home", "end", "pageup", "pagedown", *(f"f{i}" for i in range(1, 25)),
            *(f"ctrl+{c}" for c in string.ascii_lowercase if c not in "himj"), *(f"alt+{c}" for c in "aemnqux")]
    word = DEFAULT_KEYS.word
    keys: list[str] = []
    while len(keys) < n:
        roll = rng.random()
        if roll < 0.05:  # near misses: the lead chord, part of the word, then any key but the word's next letter
            typed = rng.randrange(len(word))
            keys += [DEFAULT_KEYS.lead, *word[:typed], rng.choice([k for k in pool if k.lower() != word[typed]])]
        elif roll < 0.08:
            keys += ["ctrl+x", "ctrl+e"]  # the old chord
        else:
            keys.append(rng.choice(pool))
    return keys[:n]


async def test_ten_thousand_random_keys_never_open_the_menu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Any] = []
    real_open = BenchlabApp.open_experimenter_menu

    def spy(app: BenchlabApp) -> None:
        opened.append(app.screen)
        real_open(app)

    monkeypatch.setattr(BenchlabApp, "open_experimenter_menu", spy)
    testset = write_testset(tmp_path / "ws", tuples_per_cell=4, sizes=(3, 4, 5))
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant="P01", out=str(tmp_path / "out"), seed=2,
                             practice=2, block_size=20)
    # The app's own key rules (1 s guard on breaks, 150 ms minimum RT, held-key repeats): a mash answers rarely.
    app = BenchlabApp(session=(runner, task))
    keys = mash_keys(random.Random(13), 10_000)
    screens: set[str] = set()
    started = time.monotonic()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        driver = app_driver(app)
        assert driver is not None
        for at in range(0, len(keys), 40):
            for key in keys[at:at + 40]:
                driver.send_message(events.Key(key, _character(key)))
            await pilot.pause()
            screen = app.screen
            assert not isinstance(screen, ExperimenterMenu) and isinstance(screen, SizeGuardedScreen), (at, screen)
            screens.add(type(screen).__name__)
    elapsed = time.monotonic() - started
    assert opened == []
    records = [json.loads(line) for line in runner.files.results.read_text().splitlines()]
    assert records and not any(r["input"] == "experimenter" or r["skipped"] or r["interrupted"] for r in records)
    assert {"InstructionsScreen", "ChoiceTrialScreen"} <= screens  # the mash went through the session's screens
    assert elapsed < 60, elapsed
