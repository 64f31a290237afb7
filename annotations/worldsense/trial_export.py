"""WorldSense rows of ``benchlab export trials``: every line of every human results file, joined to the test set
for the tuple, problem, size and gold answer, scored with the benchmark's per-item rule (1 and 2 both
"decidable")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchlab.annotations.trial_rows import CLIENT_COLUMNS, TrialExport, client_values, flags_text, session_files
from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense.rules import is_correct


def _human_files(paths: list[Path]) -> list[tuple[Path, str]]:
    """People's results and practice files (``<prompting>___human-<id>___results|practice.jsonl``)."""
    # deferred: pandas and scipy load only when `_human_files` runs (this module loads with the CLI)
    from benchlab.data.worldsense.compare import is_human, participant_id

    out = []
    for f in session_files(paths, ("*___results.jsonl", "*___practice.jsonl")):
        parts = f.name.split("___")
        if len(parts) != 3 or parts[2] not in ("results.jsonl", "practice.jsonl"):
            raise BenchlabError("not a WorldSense results file name (<prompting>___<who>___results.jsonl)", f)
        if is_human(parts[1]):
            out.append((f, participant_id(parts[1])))
    return out


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def rows(paths: list[Path], testset: Path | None) -> list[dict[str, Any]]:
    # deferred: numpy loads only when `rows` runs (this module loads with the CLI)
    from benchlab.data.worldsense.columns import read_trial_columns
    from benchlab.data.worldsense.results import read_results

    assert testset is not None  # checked by the command
    cols = read_trial_columns(testset)
    index = {int(k): i for i, k in enumerate(cols.key.tolist())}
    out: list[dict[str, Any]] = []
    for path, pid in _human_files(paths):
        seen: set[int] = set()
        for n, line in enumerate(read_results(path, allow_torn_tail=True)):
            ex = line.extras
            i = index.get(line.Key)
            if i is None:
                raise BenchlabError(f"Key {line.Key} (line {n + 1}) is not in the test set {testset}", path)
            gold = cols.gold_names[cols.gold_code[i]]
            skipped = bool(ex.get("skipped"))
            rt = None if skipped else _number(ex.get("rt_ms"))
            out.append({
                "participant": str(ex.get("participant") or pid), "session": ex.get("session"),
                "trial_index": ex.get("trial_index", n), "block": ex.get("block"),
                "practice": bool(ex.get("practice", path.name.endswith("___practice.jsonl"))),
                "simulated": ex.get("simulated") or "",
                "item": str(line.Key), "condition": cols.problem_names[cols.problem_code[i]],
                "response": line.resp, "correct": is_correct(line.resp, gold), "rt_ms": rt,
                "onset_source": ex.get("onset_source") or "", "timestamp": ex.get("timestamp") or "",
                "flags": flags_text(("skipped", skipped), ("interrupted", bool(ex.get("interrupted"))),
                                    ("duplicate", line.Key in seen), ("no_rt", rt is None and not skipped)),
                "source_file": str(path),
                "tuple_id": cols.tuple_names[cols.tuple_code[i]],
                "problem": cols.problem_names[cols.problem_code[i]], "problem_size": int(cols.size[i]),
                "gold": gold, **client_values(ex),
            })
            seen.add(line.Key)
    return out


TRIALS = TrialExport(
    inputs="results folders or files (human-* files)",
    testset_needed="gold answers and tuples",
    shared_notes={"item": "the trial Key as text", "condition": "problem", "response": "option string"},
    columns={
        "tuple_id": "the tuple the item belongs to (the scoring unit: the items of one tuple are scored together)",
        "problem": "problem name (Infer.trivial ... Compl.normal)",
        "problem_size": "number of objects (3, 4, 5)",
        "gold": "the correct option",
        **CLIENT_COLUMNS,
    },
    rows=rows,
)
