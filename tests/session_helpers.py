"""A small synthetic WorldSense test set for session tests (fast, and independent of the bundled sample).

Same structure as the real files: whole tuples, gold answers obfuscated, mates adjacent in gold order.
"""

from __future__ import annotations

import bz2
import json
import random
from pathlib import Path
from typing import Any

PROBLEMS = {
    "Infer.trivial": ["TRUE", "FALSE"],
    "Infer.normal": ["TRUE", "FALSE"],
    "Consist.trivial": ["POSSIBLE", "IMPOSSIBLE"],
    "Consist.normal": ["POSSIBLE", "IMPOSSIBLE"],
    "Compl.trivial": ["1", "2", "3"],
    "Compl.normal": ["1", "2", "3"],
}
GOLD_ORDER = {"Compl.normal": ["3", "2", "1"]}
OBFUSCATE = {"TRUE": "Emmanuel", "FALSE": "Megi", "POSSIBLE": "Dieuwke", "IMPOSSIBLE": "Pascal", "1": "Mark",
             "2": "Youssef", "3": "Yoda"}


def write_testset(folder: Path, tuples_per_cell: int = 4, sizes: tuple[int, ...] = (3, 4, 5), seed: int = 7,
                  compress: bool = False, long_text: bool = False, problems: tuple[str, ...] | None = None) -> Path:
    """Write ``folder/trials.jsonl`` (or ``.bz2``) and return the folder."""
    rng = random.Random(seed)
    lines = []
    n = 0
    for problem, options in PROBLEMS.items():
        if problems is not None and problem not in problems:
            continue
        for size in sizes:
            for t in range(tuples_per_cell):
                tid = f"synthetic_{problem}_{size}_{t}"
                for gold in GOLD_ORDER.get(problem, options):
                    n += 1
                    key = rng.randrange(-(2**63), 2**63)
                    text = (f"Item {n}: there are {size} things in a row. Question about {problem}, tuple {t}.\n"
                            f"Only respond with one of: {', '.join(options)}.")
                    if long_text:
                        text = (f"Item {n}. There are {size} boxes on a shelf: the red box is left of the blue box, "
                                "the green box is right of the blue box and the white box is left of the red box. "
                                "Is the following sentence 'the green box is left of the red box' true or false?\n"
                                f"Only respond with one of these options: {', '.join(options)}.")
                    lines.append({
                        "Key": key, "problemname": problem, "tuple_ID": tid, "text": text, "expectedresp": options,
                        "span": 1, "descr": "[(0, 1)]", "query": "(0, 1)", "objects": [f"o{i}" for i in range(size)],
                        "problemsize": size, "skin": "synthetic", "qskin": "directQ1", "complexity": "Complexity_0",
                        "query_len": 2, "goldresp_obfusc": OBFUSCATE[gold],
                    })
    folder.mkdir(parents=True, exist_ok=True)
    payload = "".join(json.dumps(line) + "\n" for line in lines).encode()
    if compress:
        (folder / "trials.jsonl.bz2").write_bytes(bz2.compress(payload))
    else:
        (folder / "trials.jsonl").write_bytes(payload)
    return folder


async def hand_over(app: Any, pilot: Any) -> None:
    """After the form's Start: the preview must be showing; Enter hands the session over."""
    from benchlab.tui.screens.session_preview import SessionPreviewScreen

    await pilot.pause()
    assert isinstance(app.screen, SessionPreviewScreen), f"expected the preview, got {app.screen!r}"
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()
