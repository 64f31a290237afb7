"""WorldSense comparison: participants and pooled humans against per-participant files, tests, flags, CLI, plot."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchlab.data.analysis.compare import POOLED
from benchlab.data.analysis.stats import AttentionCriterion
from benchlab.data.worldsense.compare import compare_worldsense
from benchlab.data.worldsense.scoring import score_worldsense
from benchlab.tui.cli import main
from tests.compare_fixtures import make_testset, write_results, wrong

PROBLEMS = ("Infer.trivial", "Infer.normal", "Compl.normal")


@pytest.fixture
def lab(tmp_path: Path) -> dict[str, Path]:
    ts = make_testset(tmp_path / "ts")
    # a model: right everywhere except Infer.normal size 4
    write_results(ts / "results" / "basic___GPT4___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (p == "Infer.normal" and s == 4) else g)
    out = tmp_path / "lab" / "results"
    # p1 perfect, RT 2000-2200 ms
    write_results(out / "basic___human-p1___results.jsonl", lambda p, s, t, i, g: g,
                  rt=lambda p, s, t, i: 2000.0 + 100 * t)
    # p2: tuples 0 and 1 right, tuple 2 wrong; leaves Infer.normal size 3 tuple 1 incomplete (one answer only)
    write_results(out / "basic___human-p2___results.jsonl",
                  lambda p, s, t, i, g: None if (p == "Infer.normal" and s == 3 and t == 1 and i == 1)
                  else (g if t < 2 else wrong(g)), rt=lambda p, s, t, i: 3000.0 + 10 * i)
    # p3 answers very fast and gets every trivial item wrong, only sizes 3
    write_results(out / "basic___human-p3___results.jsonl", lambda p, s, t, i, g: wrong(g) if p == "Infer.trivial"
                  else g, rt=lambda p, s, t, i: 150.0, sizes=(3,))
    return {"ts": ts, "out": out, "root": tmp_path}


def _score_alone(ts: Path, file: Path) -> dict[str, float]:
    """Per-problem means from the benchmark scorer on one participant's file alone (the reference)."""
    name = file.name.split("___")[1]
    tables = score_worldsense(ts, file.parent)
    acc = tables.accuracy.reset_index()
    acc = acc[acc["modelname"] == name]
    out = {str(r.problemname): float(r.mean) for r in acc.itertuples()}
    assert tables.overall is not None
    ov = tables.overall.reset_index()
    out["overall"] = float(ov[ov["modelname"] == name]["mean"].iloc[0])
    return out


def test_participants_match_benchmark_scorer_on_their_own_file(lab: dict[str, Path], tmp_path: Path) -> None:
    comp = compare_worldsense(lab["ts"], [lab["out"]], n_boot=500)
    for pid in ("p1", "p2", "p3"):
        alone = tmp_path / f"alone-{pid}"
        alone.mkdir()
        src = lab["out"] / f"basic___human-{pid}___results.jsonl"
        (alone / src.name).write_bytes(src.read_bytes())
        ref = _score_alone(lab["ts"], alone / src.name)
        for cond, value in ref.items():
            cell = comp.cell(pid, cond)
            assert cell is not None and cell.value == pytest.approx(value), (pid, cond)
    # hand: p2 Infer.normal size 3 has tuples 0 (right) and 2 (wrong); tuple 1 is incomplete and dropped
    # -> size 3 mean 0.5, size 4 mean 2/3 -> problem 7/12; 5 tuples behind it
    cell = comp.cell("p2", "Infer.normal")
    assert cell is not None
    assert cell.value == pytest.approx(7 / 12)
    assert cell.n_units == 5


def test_pooled_humans_count_each_tuple_once(lab: dict[str, Path]) -> None:
    comp = compare_worldsense(lab["ts"], [lab["out"]], n_boot=500)
    # Infer.trivial, size 3: p1 1,1,1; p2 1,1,0; p3 0,0,0 -> tuple means 2/3, 2/3, 1/3 -> 5/9
    #                size 4: p1 1,1,1; p2 1,1,0 (p3 did no size 4) -> 1, 1, 1/2 -> 5/6
    cell = comp.cell(POOLED, "Infer.trivial")
    assert cell is not None
    assert cell.value == pytest.approx((5 / 9 + 5 / 6) / 2)
    assert cell.n_units == 6  # distinct tuples, not 3 people x 6 tuples
    assert cell.n_participants == 3
    assert cell.ci_low <= cell.value <= cell.ci_high
    # Infer.normal size 3 tuple 1: p1 and p3 right, p2 incomplete -> mean 1 from two people
    overall = comp.cell(POOLED, "overall")
    assert overall is not None and overall.n_units == 18


def test_paired_test_uses_shared_tuples_and_names_the_method(lab: dict[str, Path]) -> None:
    comp = compare_worldsense(lab["ts"], [lab["out"]], n_boot=2000)
    rows = {(t.condition, t.model): t for t in comp.tests}
    normal = rows[("Infer.normal", "GPT4")]
    assert normal.result.method.startswith("crossed people x items") and "over shared tuples" in normal.result.method
    assert normal.result.n == 6
    assert normal.model_same_units == pytest.approx(0.5)  # size 3 all right, size 4 all wrong
    assert normal.result.estimate == pytest.approx(normal.humans - normal.model_same_units)
    trivial = rows[("Infer.trivial", "GPT4")]
    # pooled humans below GPT4 on 4 of 6 tuples (p2/p3 wrong answers), equal elsewhere: 2**4 sign patterns,
    # all four differences negative is the most extreme -> exact two-sided p = 2/16 (the old bootstrap said p<.001)
    # issue 22: the pooled p is the people x items t-test (df <= people - 1), the interval beside it the same t
    assert trivial.result.estimate < 0 and trivial.result.p_value >= 2 / 16 - 1e-12
    assert trivial.result.ci_low < 0 < trivial.result.ci_high
    text = "\n".join(comp.tests_table().frame["test"].tolist())
    assert "crossed people x items" in text


def test_participant_tests_on_request(lab: dict[str, Path]) -> None:
    comp = compare_worldsense(lab["ts"], [lab["out"]], n_boot=500, participant_tests=True)
    rows = {(t.condition, t.who, t.model): t for t in comp.tests}
    p1 = rows[("Infer.normal", "p1", "GPT4")]
    # p1 perfect, GPT4 right on size 3 and wrong on size 4: +0.5 on 6 shared tuples
    assert p1.result.estimate == pytest.approx(0.5) and p1.result.n == 6 and p1.humans == 1.0
    p3 = rows[("Infer.normal", "p3", "GPT4")]
    assert p3.result.n == 3  # p3 did only size 3; the model is compared on those tuples (all right there)
    assert p3.model_same_units == 1.0
    table = comp.tests_table().frame
    assert table.index.names == ["condition", "who", "model"]


def test_attention_flags_and_exclusion(lab: dict[str, Path]) -> None:
    crit = AttentionCriterion(min_control_accuracy=0.5, fast_ms=200, max_fast_share=0.1)
    comp = compare_worldsense(lab["ts"], [lab["out"]], criterion=crit, n_boot=300)
    flagged = {e.name: e.flags for e in comp.flagged}
    assert set(flagged) == {"p3"}
    assert any("control accuracy 0%" in r for r in flagged["p3"])
    assert any("< 200 ms" in r for r in flagged["p3"])
    kept = compare_worldsense(lab["ts"], [lab["out"]], criterion=crit, exclude_flagged=True, n_boot=300)
    pooled = kept.cell(POOLED, "Infer.trivial")
    assert pooled is not None and pooled.n_participants == 2
    # without p3: size 3 -> 1, 1, 1/2 ; size 4 -> 1, 1, 1/2 -> 5/6
    assert pooled.value == pytest.approx(5 / 6)
    assert comp.cell("p3", "Infer.trivial") is not None  # flagged people keep their own row


def test_spread_rt_and_agreement(lab: dict[str, Path]) -> None:
    comp = compare_worldsense(lab["ts"], [lab["out"]], n_boot=300)
    sp = comp.spread["overall"]
    values = sorted(c.value for p in ("p1", "p2", "p3") if (c := comp.cell(p, "overall")) is not None)
    assert (sp.min, sp.median, sp.max) == pytest.approx((values[0], values[1], values[2]))
    rt = {(p, c): s for p, c, s in comp.rt}
    assert rt[("p1", "overall")].median == pytest.approx(2100)
    assert rt[("p3", "Infer.trivial")].iqr == 0
    bins = comp.rt_quantiles["p1"]
    assert sum(b.n for b in bins) == 42 and all(b.accuracy == 1.0 for b in bins)
    # Keys with >= 2 raters: all of sizes 3 have 3 raters (except one Key p2 skipped), size 4 have 2
    agr = comp.agreement["Infer.trivial"]
    assert agr.items == 12 and agr.raters == 3
    # Infer.trivial size 4 items: p1/p2 agree on tuples 0,1 (4 items), disagree on tuple 2 (2 items)
    # size 3: (p1,p2,p3) answers -> tuple 0/1: two right one wrong (P=1/3); tuple 2: p1 right, p2/p3 wrong (1/3)
    assert agr.percent == pytest.approx((6 * (1 / 3) + 4 * 1 + 2 * 0) / 12)
    # across problems the answer sets differ, so the overall row is about right/wrong
    assert "overall" not in comp.agreement and "overall (right/wrong)" in comp.agreement


def test_bias_table_always_true_participant(lab: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "yes"
    write_results(out / "basic___human-yes___results.jsonl",
                  lambda p, s, t, i, g: "TRUE" if p.startswith("Infer") else "1")
    comp = compare_worldsense(lab["ts"], [out], n_boot=200, include_published=False)
    bias = comp.extra_tables["bias"][1].frame
    # always TRUE: +1 on inference; always "1" on completeness: +1 too (decidable)
    assert float(bias.loc[("yes", "Infer.trivial"), "bias"]) == 1.0
    assert float(bias.loc[("yes", "Compl.normal"), "bias"]) == 1.0
    cell = comp.cell("yes", "Infer.normal")
    assert cell is not None and cell.value == 0.5  # exactly chance, as the spec says for a constant answerer
    text = comp.extra_tables["bias"][0].frame.loc["yes", "Infer.trivial"]
    assert text.startswith("1.00")


def test_benchmark_ci_option_uses_the_papers_formula(lab: dict[str, Path]) -> None:
    comp = compare_worldsense(lab["ts"], [lab["out"]], ci="benchmark")
    gpt4 = score_worldsense(lab["ts"], lab["ts"] / "results").accuracy.reset_index()
    ref = gpt4[gpt4["problemname"] == "Infer.normal"].iloc[0]
    cell = comp.cell("GPT4", "Infer.normal")
    assert cell is not None and cell.method == "WorldSense 1.96*sem"
    assert cell.ci_high - cell.value == pytest.approx(1.96 * ref["sem"])
    assert any("1.96*sem" in n for n in comp.notes)


def test_only_models_or_only_humans(lab: dict[str, Path]) -> None:
    models_only = compare_worldsense(lab["ts"], None, n_boot=200)
    assert [e.name for e in models_only.entries] == ["GPT4"] and not models_only.tests
    humans_only = compare_worldsense(lab["ts"], [lab["out"]], include_published=False, n_boot=200)
    assert humans_only.models == [] and humans_only.cell(POOLED, "overall") is not None


def run_cli(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def test_cli_formats_and_plot(lab: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    base = ["compare", "worldsense", "-t", str(lab["ts"]), "--results", str(lab["out"]), "--boot", "300"]
    assert run_cli([*base, "--only", "accuracy", "--only", "tests"]) == 0
    out = capsys.readouterr().out
    assert "humans (pooled)" in out and "crossed people x items" in out and "over shared tuples" in out
    assert run_cli([*base, "--format", "json", "--only", "accuracy"]) == 0
    payload = json.loads(capsys.readouterr().out)
    rows = {(r["index"]): r["cells"] for r in payload[0]["rows"]}
    pooled = rows[f"{POOLED} / Infer.trivial"]
    assert pooled["accuracy"] == pytest.approx((5 / 9 + 5 / 6) / 2, abs=1e-6)
    assert pooled["participants"] == 3 and pooled["tuples"] == 6
    assert run_cli([*base, "--format", "latex", "--only", "accuracy"]) == 0
    assert "\\begin{tabular}" in capsys.readouterr().out
    fig = lab["root"] / "fig.png"
    assert run_cli([*base, "--only", "methods", "--plot", str(fig)]) == 0
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = lab["root"] / "fig.svg"
    assert run_cli([*base, "--only", "methods", "--plot", str(svg)]) == 0
    assert "<svg" in svg.read_text()[:500]
    capsys.readouterr()
    assert run_cli([*base, "--plot", str(lab["root"] / "fig.xyz")]) == 2
    captured = capsys.readouterr()
    assert "unsupported figure format" in captured.err and captured.out == ""  # before the tables, not after
    assert run_cli([*base, "--only", "methods"]) == 0
    methods = capsys.readouterr().out.splitlines()
    assert methods[3].index("Scores:") < 5  # notes left-aligned, not right-aligned into very wide lines


def test_cli_bad_results_line_names_file_and_line(lab: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    bad = lab["out"] / "basic___human-p9___results.jsonl"
    bad.write_text('{"Key":1,"resp":"TRUE"}\n{"Key": "oops"\n{"Key":2,"resp":"TRUE"}\n')
    assert run_cli(["compare", "worldsense", "-t", str(lab["ts"]), "--results", str(lab["out"])]) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchlab: error: ") and "human-p9" in err and ":2:" in err


@pytest.mark.slow
def test_published_models_match_spec_and_ci_is_the_stratified_one() -> None:
    from tests.conftest import full_data

    ts = full_data("worldsense", "test_set")
    comp = compare_worldsense(ts, None, n_boot=1000)
    gpt4 = comp.cell("GPT4", "overall")
    assert gpt4 is not None
    assert gpt4.value == pytest.approx(0.7563636665339175, abs=1e-12)  # spec section 9
    assert gpt4.n_units == 40176  # every tuple of the test set
    # the benchmark's own CI is kept for the export: 1.96 * sem of spec section 9
    assert gpt4.extra["benchmark_ci95"] == pytest.approx(1.96 * 0.001979674804661221, rel=1e-9)
    # our CI: bootstrap of the stratified mean -> close to the textbook stratified SE (problem x size cells)
    tuples = score_worldsense(ts, ts / "results").tuples
    own = tuples[tuples["modelname"] == "GPT4"]
    cells = own.groupby(["problemname", "problemsize"])["acc"].agg(["var", "count"])
    w = 1 / len(cells)
    se = float(np.sqrt((w**2 * cells["var"] / cells["count"]).sum()))
    half_width = (gpt4.ci_high - gpt4.ci_low) / 2
    assert half_width == pytest.approx(1.96 * se, rel=0.1)
    assert np.isclose(comp.cell("Llama2-FT+1M", "Compl.trivial").value, 0.985, atol=0.0005)  # type: ignore[union-attr]
    # bias per problem: the published GPT4 row (spec section 9)
    bias = comp.extra_tables["bias"][1].frame
    problems = ("Infer.trivial", "Infer.normal", "Consist.trivial", "Consist.normal", "Compl.trivial", "Compl.normal")
    gpt4_bias = [round(float(bias.loc[("GPT4", p), "bias"]), 2) for p in problems]
    assert gpt4_bias == [-0.14, -0.20, -0.12, 0.00, 0.09, 0.78]


def test_bench_compare_prints_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["bench", "compare", "--participants", "2", "--tuples-per-participant", "5", "--boot", "200"]) == 0
    out = capsys.readouterr().out
    assert "synthetic participants: 2 x 5 tuples" in out and "full comparison" in out and "peak RSS" in out


def test_plot_without_matplotlib_is_a_clear_error(lab: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    fig = lab["root"] / "fig.png"
    args = ["compare", "worldsense", "-t", str(lab["ts"]), "--results", str(lab["out"]), "--boot", "200",
            "--only", "methods", "--plot", str(fig)]
    assert run_cli(args) == 2
    captured = capsys.readouterr()
    assert "pip install 'benchlab[plot]'" in captured.err
    assert captured.out == ""  # said before any table is computed and printed, not after
    assert not fig.exists()


def test_run_simulated_sessions_then_compare_with_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The lab workflow on the bundled sample: two simulated participants, then `compare worldsense` alone."""
    monkeypatch.chdir(tmp_path)
    for pid, policy in (("s1", "oracle"), ("s2", "biased")):
        assert run_cli(["run", "worldsense", "--participant", pid, "--simulate", policy, "--seed", "3",
                        "--no-instructions"]) == 0
    capsys.readouterr()
    assert run_cli(["compare", "worldsense", "--boot", "300", "--format", "json", "--only", "accuracy"]) == 0
    captured = capsys.readouterr()
    assert "sessions' default output folder" in captured.err
    rows = {r["index"]: r["cells"] for r in json.loads(captured.out)[0]["rows"]}
    assert rows["s1 / overall"]["accuracy"] == 1.0  # the oracle
    assert rows["s1 / overall"]["simulated"] == "oracle"
    assert rows["s2 / overall"]["accuracy"] == 0.5  # always the first option: exactly chance
    assert f"{POOLED} / overall" not in rows  # simulated runs are never pooled as "humans" by default
    assert "GPT4 / overall" in rows  # the sample's published models
    assert run_cli(["compare", "worldsense", "--boot", "300", "--format", "json", "--only", "accuracy",
                    "--include-simulated"]) == 0
    rows = {r["index"]: r["cells"] for r in json.loads(capsys.readouterr().out)[0]["rows"]}
    assert rows[f"{POOLED} / overall"]["accuracy"] == 0.75


def test_simulated_participant_has_its_own_row_and_is_not_pooled(lab: dict[str, Path],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """QA: a `--simulate oracle` pilot (PILOT, 100%) was pooled with real people into "humans (pooled)"."""
    before = compare_worldsense(lab["ts"], [lab["out"]], n_boot=200)
    write_results(lab["out"] / "basic___human-PILOT___results.jsonl", lambda p, s, t, i, g: g,
                  extra={"simulated": "oracle"})
    comp = compare_worldsense(lab["ts"], [lab["out"]], n_boot=200)
    labels = comp.accuracy_table().frame.index.tolist()
    assert "PILOT (simulated oracle)" in labels and "PILOT" not in labels
    assert comp.cell("PILOT", "overall").value == pytest.approx(1.0)  # type: ignore[union-attr]
    for c in comp.conditions:
        assert comp.cell(POOLED, c).value == pytest.approx(before.cell(POOLED, c).value)  # type: ignore[union-attr]
        assert comp.cell(POOLED, c).n_participants == 3  # type: ignore[union-attr]
    assert comp.agreement["Infer.trivial"] == before.agreement["Infer.trivial"]
    assert comp.spread["overall"].n == 3
    assert any("PILOT (oracle)" in n and "left out of the pooled humans" in n for n in comp.notes)
    from benchlab.data.analysis.plots import comparison_figure

    def dots(c: object) -> int:  # participant dots drawn over the pooled humans' bars
        fig = comparison_figure(c)  # type: ignore[arg-type]
        return sum(len(col.get_offsets()) for col in fig.axes[0].collections if col.get_label() == "participants")

    assert dots(comp) == dots(before)  # the pilot is no dot among the people
    pooled_in = compare_worldsense(lab["ts"], [lab["out"]], n_boot=200, include_simulated=True)
    assert dots(pooled_in) > dots(comp)
    assert pooled_in.cell(POOLED, "overall").n_participants == 4  # type: ignore[union-attr]
    assert pooled_in.agreement["Infer.trivial"].raters == 4
    assert any("INCLUDED" in n for n in pooled_in.notes)
    base = ["compare", "worldsense", "-t", str(lab["ts"]), "--results", str(lab["out"]), "--boot", "200"]
    assert run_cli([*base, "--only", "accuracy", "--only", "methods"]) == 0
    out = capsys.readouterr().out
    assert "PILOT (simulated oracle)" in out and "--include-simulated pools them" in out


def test_tests_from_one_oracle_on_six_tuples_are_not_significant(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """QA: one oracle participant vs GPT4 on 6 tuples printed `[+16.7, +16.7] p<.001***`."""
    ts = make_testset(tmp_path / "ts")
    write_results(ts / "results" / "basic___GPT4___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (p == "Infer.trivial" and s == 4 and t == 0) else g)
    out = tmp_path / "lab"
    write_results(out / "basic___human-PILOT___results.jsonl", lambda p, s, t, i, g: g,
                  extra={"simulated": "oracle"})
    args = ["compare", "worldsense", "-t", str(ts), "--results", str(out), "--only", "tests", "--boot", "300"]
    assert run_cli(args) == 0
    assert "no pooled humans" in capsys.readouterr().out  # the pilot alone is not "humans"
    assert run_cli([*args, "--include-simulated"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.lstrip().startswith("Infer.trivial"))
    assert "+16.7" in line and "p=1" in line and "*" not in line
    # issue 22: the interval inverts the sign-flip test printed beside it (0 inside, p = 1), never zero width
    assert "[+16.7, +16.7]" not in text and "p<.001" not in text and "+16.7 [+0.0, +100.0]" in line
    assert "sign-flip permutation test (exact)" in text
    assert run_cli([*args, "--format", "markdown"]) == 0  # an empty tests table: a sentence, not `|  |`
    md = capsys.readouterr().out
    assert "|  |" not in md and "(no tests: no pooled humans" in md
