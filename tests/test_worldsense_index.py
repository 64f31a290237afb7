"""The cached index WorldSense sessions plan from: same plans and records as the full load, rebuilt when the test
set changes, a damaged cache rebuilt with a warning, bad test sets refused with the loader's errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import full_data
from session_helpers import write_testset

from benchlab.annotations.session.opening import open_parts
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import ResponseTiming
from benchlab.annotations.worldsense.plan import WorldSensePlanOptions, build_worldsense_plan
from benchlab.annotations.worldsense.session import worldsense_session_parts
from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.worldsense.loader import load_trials
from benchlab.data.worldsense.trial_index import forget_shared_indexes, index_folder, open_index, shared_index


def _same(a: SessionPlan, b: SessionPlan) -> bool:
    """Equal plans (``created`` is the clock's second, not part of the plan's content)."""
    return a.model_dump(exclude={"created"}) == b.model_dump(exclude={"created"})


@pytest.fixture(autouse=True)
def _fresh_shared() -> None:
    forget_shared_indexes()


def _plans_agree(testset: Path, seeds: range, **options: object) -> None:
    trials = load_trials(testset)
    index = open_index(testset)
    opts = WorldSensePlanOptions(**options)  # type: ignore[arg-type]
    for seed in seeds:
        kw = {"dataset": str(testset), "participant": "P01", "session": "1", "seed": seed, "options": opts}
        assert _same(build_worldsense_plan(index, **kw), build_worldsense_plan(trials, **kw))  # type: ignore[arg-type]


def test_the_index_gives_the_same_plans_as_the_full_load(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=8)
    _plans_agree(testset, range(5))
    _plans_agree(testset, range(3), participants="P01,P02,P03", practice=6, min_gap=2)


def test_the_index_gives_the_same_plans_on_the_bundled_sample() -> None:
    _plans_agree(sample_path("worldsense"), range(3))


def test_the_index_gives_the_same_plans_and_trials_on_the_full_test_set() -> None:
    testset = full_data("worldsense", "test_set")
    trials = load_trials(testset)
    index = open_index(testset)
    assert (len(index), index.n_tuples) == (87048, 40176)
    by_key = {t.Key: t for t in trials}
    plan = build_worldsense_plan(index, dataset="t", participant="P01", session="1", seed=3)
    assert _same(plan, build_worldsense_plan(trials, dataset="t", participant="P01", session="1", seed=3))
    for item in [*plan.practice, *plan.main_items]:
        assert index.trial(int(item)) == by_key[int(item)]
    some = trials[:: 997]
    assert [index.tuple_of(t.Key) for t in some] == [t.tuple_ID for t in some]


def test_every_trial_read_from_the_index_equals_the_loaded_one(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=3, compress=True)
    trials = load_trials(testset)
    index = open_index(testset)
    assert list(index.iter_trials()) == trials
    assert index.trial(12345) is None and 12345 not in index
    assert index.tuple_of(trials[4].Key) == trials[4].tuple_ID
    assert index.tuple_keys(trials[0].tuple_ID) == [t.Key for t in trials if t.tuple_ID == trials[0].tuple_ID]


def test_a_session_from_the_index_writes_the_same_records_as_from_the_full_load(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=4)
    written = []
    for name, data in (("full", load_trials(testset)), ("index", shared_index(testset))):
        out = tmp_path / name
        runner = open_parts(worldsense_session_parts(data, dataset=testset, participant="P01", out=out), seed=5)
        for _ in range(4):
            runner.respond(runner.options()[0], ResponseTiming(onset_mono=1.0, response_mono=2.0))
        runner.close()
        lines = (out / "practice" / "basic___human-P01___practice.jsonl").read_text().splitlines()
        written.append([{k: v for k, v in json.loads(line).items() if k in ("Key", "resp", "trial_index")}
                        for line in lines])
    assert written[0] == written[1] and len(written[0]) == 4


def test_one_shared_index_per_test_set_and_a_new_one_when_the_file_changes(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=3)
    first = shared_index(testset)
    assert shared_index(testset / "trials.jsonl") is first
    write_testset(testset, tuples_per_cell=4, seed=99)  # new content, same path
    second = shared_index(testset)
    assert second is not first
    assert len(second) == len(load_trials(testset)) != len(first)
    assert sorted(p.name for p in index_folder().iterdir() if p.name.startswith("index-")) == sorted(
        [first.folder.name, second.folder.name])


@pytest.mark.parametrize("damage", ["arrays", "trials", "meta"])
def test_a_damaged_cache_is_rebuilt_with_a_warning(tmp_path: Path, damage: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=3)
    trials = load_trials(testset)
    folder = open_index(testset).folder
    if damage == "arrays":
        raw = bytearray((folder / "keys.bin").read_bytes())
        raw[5] ^= 0xFF
        (folder / "keys.bin").write_bytes(bytes(raw))
    elif damage == "trials":
        (folder / "trials.jsonl").write_bytes(b"x" * 10)
    else:
        (folder / "meta.json").write_text("{not json")
    capsys.readouterr()
    index = open_index(testset)
    assert "warning: the cached index" in capsys.readouterr().err
    assert list(index.iter_trials()) == trials


def test_a_trial_line_damaged_while_open_is_rebuilt_with_a_warning(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=3)
    trials = load_trials(testset)
    index = open_index(testset)
    raw = bytearray((index.folder / "trials.jsonl").read_bytes())
    at = raw.index(b"Item ")
    raw[at:at + 4] = b"Itxm"  # same size, other content: only the line's checksum can tell
    (index.folder / "trials.jsonl").write_bytes(bytes(raw))
    capsys.readouterr()
    assert index.trial(trials[0].Key) == trials[0]
    assert "warning: the cached index" in capsys.readouterr().err


def test_a_bad_test_set_is_refused_with_the_loaders_error(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=2)
    lines = (testset / "trials.jsonl").read_text().splitlines()
    (testset / "trials.jsonl").write_text("\n".join([*lines, lines[0]]) + "\n")
    with pytest.raises(BenchlabError) as loader:
        load_trials(testset)
    with pytest.raises(BenchlabError) as indexed:
        open_index(testset)
    assert str(indexed.value) == str(loader.value) and "duplicate Key" in str(indexed.value)
    assert not [p for p in index_folder().iterdir() if p.name.startswith("index-")]


def test_an_unwritable_cache_folder_still_gives_sessions_an_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=2)
    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("not a folder")
    index = open_index(testset, cache_dir=blocked / "worldsense")
    assert "warning: cannot write the index cache" in capsys.readouterr().err
    assert list(index.iter_trials()) == load_trials(testset)
