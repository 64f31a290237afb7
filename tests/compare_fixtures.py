"""Small WorldSense test sets and results files written from scratch, for the comparison tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

OBF = {"TRUE": "Emmanuel", "FALSE": "Megi", "1": "Mark", "2": "Youssef", "3": "Yoda"}
# problem -> gold order inside a tuple (spec section 4)
GOLDS = {"Infer.trivial": ["TRUE", "FALSE"], "Infer.normal": ["TRUE", "FALSE"], "Compl.normal": ["3", "2", "1"]}
OPTIONS = {"Infer.trivial": ["TRUE", "FALSE"], "Infer.normal": ["TRUE", "FALSE"], "Compl.normal": ["1", "2", "3"]}


def trial_key(problem: str, size: int, t: int, i: int) -> int:
    """Distinct 64-bit Keys beyond 2**53 (as in the real data)."""
    p = list(GOLDS).index(problem)
    return -(2**60) + p * 10_000_000 + size * 100_000 + t * 10 + i


def make_testset(root: Path, tuples_per_cell: int = 3, sizes: tuple[int, ...] = (3, 4),
                 problems: tuple[str, ...] = ("Infer.trivial", "Infer.normal", "Compl.normal")) -> Path:
    """A test-set folder with ``trials.jsonl`` (no results yet)."""
    root.mkdir(parents=True, exist_ok=True)
    lines = []
    for problem in problems:
        for size in sizes:
            for t in range(tuples_per_cell):
                for i, gold in enumerate(GOLDS[problem]):
                    lines.append({
                        "Key": trial_key(problem, size, t, i), "problemname": problem,
                        "tuple_ID": f"{problem}-s{size}-t{t}", "text": f"Question {problem} {size} {t} {i}?",
                        "expectedresp": OPTIONS[problem], "span": 1, "descr": "[(0, 1)]", "query": "(0, 1)",
                        "objects": [f"o{k}" for k in range(size)], "problemsize": size, "skin": "trips",
                        "qskin": "directQ1", "complexity": "Complexity_0", "query_len": 2,
                        "goldresp_obfusc": OBF[gold],
                    })
    (root / "trials.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (root / "results").mkdir(exist_ok=True)
    return root


Answerer = Callable[[str, int, int, int, str], str | None]  # (problem, size, tuple, index, gold) -> resp / skip


def write_results(path: Path, answer: Answerer, rt: Callable[[str, int, int, int], float] | None = None,
                  tuples_per_cell: int = 3, sizes: tuple[int, ...] = (3, 4),
                  problems: tuple[str, ...] = ("Infer.trivial", "Infer.normal", "Compl.normal"),
                  extra: Mapping[str, object] | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for problem in problems:
        for size in sizes:
            for t in range(tuples_per_cell):
                for i, gold in enumerate(GOLDS[problem]):
                    resp = answer(problem, size, t, i, gold)
                    if resp is None:
                        continue
                    rec: dict[str, object] = {"Key": trial_key(problem, size, t, i), "resp": resp}
                    if rt is not None:
                        rec["rt_ms"] = rt(problem, size, t, i)
                    rec.update(extra or {})
                    out.append(json.dumps(rec, separators=(",", ":")))
    path.write_text("".join(x + "\n" for x in out))
    return path


def wrong(gold: str) -> str:
    return {"TRUE": "FALSE", "FALSE": "TRUE", "1": "3", "2": "3", "3": "1"}[gold]


def write_two_people(out: Path) -> Path:
    """Two people's results in ``out``: p1 right on every tuple's later trials, p2 on the first two (with RTs)."""
    write_results(out / "basic___human-p1___results.jsonl", lambda p, s, t, i, g: g if t else wrong(g),
                  rt=lambda p, s, t, i: 2000.0 + 100 * t)
    write_results(out / "basic___human-p2___results.jsonl", lambda p, s, t, i, g: g if t < 2 else wrong(g),
                  rt=lambda p, s, t, i: 3000.0 + 10 * i)
    return out
