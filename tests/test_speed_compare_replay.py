"""``benchlab compare`` repeated with unchanged inputs is replayed by the console script (no CLI, no pandas): the same
stdout and stderr as the run that computed it; a changed person file, a new person, a study file appearing above
the results, a models folder beside them or a figure asked for are computed again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.compare_fixtures import make_testset, write_results, wrong
from tests.test_compare_sort import write_csv

PROBE = ("import sys; from benchlab.tui.entry import main; main(sys.argv[1:]); "
         "sys.stderr.write('COMMAND LOADED\\n' if any(m.startswith('benchlab.annotations.') and "
             "m.endswith('.commands') for m in sys.modules) else '')")


def _run(args: list[str], cache: Path, cwd: Path) -> tuple[str, str, bool, int]:
    """stdout, stderr, whether the run was a replay (no command declaration loaded), exit status."""
    env = {**os.environ, "BENCHLAB_CACHE_DIR": str(cache)}
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True, text=True,
                          timeout=300, cwd=cwd)
    replay = proc.returncode == 0 and "COMMAND LOADED" not in proc.stderr
    return proc.stdout, proc.stderr.replace("COMMAND LOADED\n", ""), replay, proc.returncode


def _worldsense_lab(root: Path) -> tuple[Path, Path]:
    ts = make_testset(root / "ts")
    write_results(ts / "results" / "basic___GPT4___results.jsonl",
                  lambda p, s, t, i, g: g if (t + i) % 3 else wrong(g))
    out = root / "lab" / "results"
    write_results(out / "basic___human-p1___results.jsonl", lambda p, s, t, i, g: g)
    write_results(out / "basic___human-p2___results.jsonl", lambda p, s, t, i, g: wrong(g) if t == 0 else g)
    return ts, out


def test_compare_worldsense_is_replayed_until_a_person_changes_or_joins(tmp_path: Path) -> None:
    ts, out = _worldsense_lab(tmp_path)
    cache = tmp_path / "cache"
    args = ["compare", "worldsense", "-t", str(ts), "--results", str(out), "--boot", "200"]
    first = _run(args, cache, tmp_path)
    second = _run(args, cache, tmp_path)
    assert first[3] == 0 and not first[2] and second[2]
    assert first[:2] == second[:2] and "\np2 " in first[0] and "GPT4" in first[0]
    # p2 now answers every item right: computed again, and the tables say so
    write_results(out / "basic___human-p2___results.jsonl", lambda p, s, t, i, g: g)
    changed = _run(args, cache, tmp_path)
    assert not changed[2] and changed[3] == 0 and changed[0] != first[0]
    assert _run(args, cache, tmp_path)[:2] == changed[:2]
    # a new person's file: computed again, with that person
    write_results(out / "basic___human-p3___results.jsonl", lambda p, s, t, i, g: wrong(g))
    joined = _run(args, cache, tmp_path)
    assert not joined[2] and "\np3 " in joined[0] and "\np3 " not in changed[0]


def test_a_models_folder_or_study_file_appearing_beside_the_results_is_read_not_replayed(tmp_path: Path) -> None:
    ts, out = _worldsense_lab(tmp_path)
    cache = tmp_path / "cache"
    args = ["compare", "worldsense", "-t", str(ts), "--results", str(out), "--boot", "200", "--only", "accuracy"]
    assert not _run(args, cache, tmp_path)[2]
    assert _run(args, cache, tmp_path)[2]
    (out.parent / "models").mkdir()  # model runs beside the results: their prompt hashes are read
    assert not _run(args, cache, tmp_path)[2]
    assert _run(args, cache, tmp_path)[2]
    (out.parent / "study.toml").write_text("this is not a study\n")
    read = _run(args, cache, tmp_path)
    assert not read[2] and read[3] != 0 and "study.toml" in read[1]


def test_compare_sort_is_replayed_until_a_person_file_changes(tmp_path: Path) -> None:
    res = tmp_path / "results"
    write_csv(res / "250-s20-hf_Llama3_results.csv", "Llama3", [i % 2 == 0 for i in range(20)])
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [i < 16 for i in range(20)], "p1",
              [1000.0 + 100 * i for i in range(20)])
    write_csv(res / "250-s20-human-p2_results.csv", "human-p2", [True] * 20, "p2", [900.0] * 20)
    cache = tmp_path / "cache"
    args = ["compare", "sort", str(res), "--boot", "200", "--format", "csv"]
    first = _run(args, cache, tmp_path)
    again = _run(args, cache, tmp_path)
    assert first[3] == 0 and not first[2] and again[2] and first[:2] == again[:2]
    write_csv(res / "250-s20-human-p2_results.csv", "human-p2", [False] * 20, "p2", [900.0] * 20)
    changed = _run(args, cache, tmp_path)
    assert not changed[2] and changed[3] == 0 and changed[0] != first[0]
    # a figure is a file written: each run writes it again, none is replayed
    figure = tmp_path / "fig.pdf"
    with_plot = [*args, "--only", "accuracy", "--plot", str(figure)]
    assert not _run(with_plot, cache, tmp_path)[2] and figure.is_file()
    figure.unlink()
    again = _run(with_plot, cache, tmp_path)
    assert not again[2] and again[3] == 0 and figure.is_file()
