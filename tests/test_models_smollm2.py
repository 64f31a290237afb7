"""End to end with a real model: SmolLM2-135M-Instruct served by llama-cpp-python on 127.0.0.1 answers 8 WorldSense
and 8 SORT STM items of simulated sessions' plans through ``benchlab models run`` (inspect_ai's ``openai-api``
provider); ``score`` and ``compare`` read the results beside the people; the SORT CSV is what SORT's own accuracy
code reads; a run killed mid-way resumes without a duplicate or a repeated request (counted in the server's access
log); the inspect log and an lm-eval samples file import to the same results. A 135M model is near chance: the
tests check the path, not the accuracy."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from benchlab.data.models.provenance import RunProvenance
from benchlab.data.samples import sample_path
from tests.models_server import Server, smollm2_server  # noqa: F401  (the smollm2 fixture)
from tests.test_study import STUDY

MODEL = "openai-api/llamacpp/smollm2"
RUN_TIMEOUT_S = 900


def benchlab(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchlab.tui.cli", *args], capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, cwd=cwd)


def simulated(task: str, out: Path) -> Path:
    done = benchlab("run", task, "--participant", "P01", "--simulate", "random", "--out", str(out), cwd=out.parent)
    assert done.returncode == 0, done.stderr
    return out


def run_model(task: str, plans: Path, server: Server, *extra: str) -> subprocess.CompletedProcess[str]:
    return benchlab("models", "run", task, "--model", MODEL, "--model-base-url", server.url, "--plans", str(plans),
                    "--limit", "8", "--max-connections", "1", *extra, cwd=plans.parent)


def test_worldsense_on_smollm2_scored_and_compared_with_people(smollm2: Server, tmp_path: Path) -> None:
    plans = simulated("worldsense", tmp_path / "ws")
    before = smollm2.requests()
    done = run_model("worldsense", plans, smollm2)
    assert done.returncode == 0, done.stderr
    # whole tuples only (WorldSense scores a tuple when all its items are answered): 8 items or a few less
    (prov_path,) = (plans / "models").glob("*.run.json")
    prov = RunProvenance.model_validate_json(prov_path.read_text())
    n = len(prov.items)
    assert 6 <= n <= 8 and smollm2.requests() - before == n
    results = plans / "results" / "basic___smollm2___results.jsonl"
    lines = [json.loads(x) for x in results.read_text().splitlines()]
    assert len(lines) == n and len({x["Key"] for x in lines}) == n
    assert prov.base_url == smollm2.url and prov.requests == n
    # a rerun with nothing new asks nothing
    again = run_model("worldsense", plans, smollm2)
    assert again.returncode == 0 and f"(0 asked, {n} from the cache)" in again.stdout
    assert smollm2.requests() - before == n
    scored = benchlab("score", "worldsense", "-t", str(sample_path("worldsense")), "--results",
                      str(plans / "results"), cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    assert "smollm2" in scored.stdout and "human-P01" in scored.stdout
    compared = benchlab("compare", "worldsense", "--results", str(plans / "results"), "--boot", "300", cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert f"same prompts as the people's items on all {n} shared items" in compared.stdout
    # the inspect log and an lm-eval samples file of the same answers import to the same results
    log = Path(prov.logs[0])
    imported = benchlab("models", "import", "worldsense", str(log), "--plans", str(plans), "--out",
                        str(tmp_path / "imp" / "results"), "--model-name", "smollm2", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert (tmp_path / "imp" / "results" / results.name).read_text() == results.read_text()
    cache = [json.loads(x) for x in (plans / "models" / "cache.jsonl").read_text().splitlines()]
    samples = tmp_path / "samples_worldsense.jsonl"
    samples.write_text("".join(json.dumps({"doc_id": n, "doc": {"Key": int(c["id"])}, "filter": "none",
                                           "resps": [[c["completion"]]], "filtered_resps": [c["completion"]]}) + "\n"
                               for n, c in enumerate(cache)))
    lm = benchlab("models", "import", "worldsense", str(samples), "--plans", str(plans), "--out",
                  str(tmp_path / "lm" / "results"), "--model-name", "smollm2", cwd=tmp_path)
    assert lm.returncode == 0, lm.stderr
    assert (tmp_path / "lm" / "results" / results.name).read_text() == results.read_text()


def test_sort_stm_on_smollm2_writes_what_sorts_accuracy_code_reads(smollm2: Server, tmp_path: Path) -> None:
    plans = simulated("sort", tmp_path / "sort")
    done = run_model("sort", plans, smollm2)
    assert done.returncode == 0, done.stderr
    (path,) = (plans / "results").glob("*-smollm2_results.csv")
    frame = pd.read_csv(path, index_col=0)  # as SORT's calc_accuracy reads it: one file, mean(correct)
    assert list(frame.columns) == [
        "index", "book_idx", "excerpt_idx", "segment_idx", "seg1_pos", "seg2_pos", "distance_bin",
        "present_seg1_first", "excerpt_pos", "excerpt_text", "book_title", "num_words", "segment_length",
        "excerpt_length", "data", "prob_A", "prob_B", "raw_answer", "model_name", "A_is_first", "answer",
        "prompt_logprob_jsons", "parsed_raw_answer", "ground_truth", "correct"]
    assert len(frame) == 8 and frame["answer"].isin(["A", "B", "X"]).all()
    assert (frame["ground_truth"] == frame["A_is_first"].map({1: "A", 0: "B"})).all()
    assert (frame["correct"] == (frame["answer"] == frame["ground_truth"])).all()
    assert frame["correct"].dtype == bool and 0.0 <= frame["correct"].mean() <= 1.0
    compared = benchlab("compare", "sort", str(plans / "results"), "--boot", "300", cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert "smollm2" in compared.stdout


def test_killed_run_resumes_without_a_repeated_request(smollm2: Server, tmp_path: Path) -> None:
    plans = simulated("sort", tmp_path / "sort")
    cache = plans / "models" / "cache.jsonl"
    before = smollm2.requests()
    proc = subprocess.Popen([sys.executable, "-m", "benchlab.tui.cli", "models", "run", "sort", "--model", MODEL,
                             "--model-base-url", smollm2.url, "--plans", str(plans), "--limit", "8",
                             "--max-connections", "1"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while not (cache.exists() and len(cache.read_text().splitlines()) >= 3):
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "no answers within the time limit"
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    answered = len(cache.read_text().splitlines())
    first = smollm2.requests() - before
    assert answered >= 3 and first <= answered + 1  # at most the one request in flight when killed
    resumed = run_model("sort", plans, smollm2)
    assert resumed.returncode == 0, resumed.stderr
    second = smollm2.requests() - before - first
    assert second == 8 - answered  # only the unanswered items were asked again
    (path,) = (plans / "results").glob("*-smollm2_results.csv")
    frame = pd.read_csv(path, index_col=0)
    assert len(frame) == 8 and not frame.duplicated(["book_idx", "excerpt_idx", "distance_bin"]).any()
    assert len({json.loads(x)["id"] for x in cache.read_text().splitlines()}) == 8



#: The study of tests/test_study.py with its LTM arm only (LTM prompts hold no excerpt: the model answers quickly).
LTM_STUDY = STUDY.replace('[[arms]]\nname = "stm"\noptions = { condition = "stm" }\n\n', "").replace("{rule}",
                                                                                               "balanced")


def test_a_study_against_smollm2_from_one_command_each(smollm2: Server, tmp_path: Path) -> None:
    """What a researcher with only a model endpoint does: people run the study, then one command puts the model on
    exactly their items (`models run --study`), and `compare` shows both with the hashes' verdict. LTM items (no
    excerpt in the prompt) keep the model's time short."""
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.toml").write_text(LTM_STUDY)
    assert 'name = "stm"' not in LTM_STUDY
    done = benchlab("run", "--study", str(study), "--participant", "P01", "--simulate", "random", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    before = smollm2.requests()
    done = benchlab("models", "run", "sort", "--model", MODEL, "--model-base-url", smollm2.url, "--study",
                    str(study), "--max-connections", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "4 items (4 asked, 0 from the cache)" in done.stdout and smollm2.requests() - before == 4
    assert len(list((study / "results").glob("*-smollm2-ltm_results.csv"))) == 1  # the SORT code's LTM naming
    prov = RunProvenance.model_validate_json(next((study / "models").glob("*.run.json")).read_text())
    assert [str(p) for p in prov.plans] and len(prov.items) == 4
    compared = benchlab("compare", "sort", str(study / "results"), "--boot", "300", cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert "smollm2: same prompts as the people's items on all 4 shared items (SHA-256)" in compared.stdout
