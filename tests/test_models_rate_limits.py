"""Rate limits and timeouts (issue 20, bad input): a model endpoint that answers HTTP 429 is retried with backoff as
inspect does (``--max-retries``; ``--retry-wait`` shortens the backoff here) and the run goes on when the endpoint
recovers; an endpoint that never recovers, or never answers within ``--timeout``, ends the run in one line naming
the model, bounded in time, with every answer given before kept. The endpoint is a fake OpenAI-compatible server
on 127.0.0.1 (tests/fake_openai.py)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fake_openai import fake_openai
from tests.test_models_unit import cli, simulate

MODEL = "openai-api/fake/m"
#: Retries kept short: inspect's backoff starts at 3 s; the openai client adds its own two quick retries per try.
QUICK = ("--max-connections", "1", "--retry-wait", "0.05")


def _run(plans: Path, url: str, limit: int, retries: int, *extra: str) -> tuple[int, str]:
    return cli("models", "run", "worldsense", "--model", MODEL, "--model-base-url", url, "--plans", str(plans),
               "--limit", str(limit), "--max-retries", str(retries), *QUICK, *extra)


def _answers(plans: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in (plans / "results" / "basic___m___results.jsonl").read_text().splitlines()]


def test_rate_limited_requests_are_retried_until_the_endpoint_recovers(tmp_path: Path) -> None:
    plans = simulate("worldsense", tmp_path / "ws")
    # 4 refusals: more than the openai client's own 3 tries, so inspect's retry with backoff is what recovers
    with fake_openai(fail_first=4) as server:
        code, output = _run(plans, server.url, limit=2, retries=2)
    assert code == 0, output
    answers = _answers(plans)
    assert answers and all(a["resp"] in ("TRUE", "") for a in answers)  # whole tuples: 2 or 3 items
    assert server.requests == 4 + len(answers)  # each item answered once after the refusals


def test_an_endpoint_that_always_rate_limits_ends_in_one_line_keeping_earlier_answers(tmp_path: Path) -> None:
    plans = simulate("worldsense", tmp_path / "ws")
    with fake_openai(fail_first=0) as server:
        assert _run(plans, server.url, limit=1, retries=0)[0] == 0
        kept = _answers(plans)
        before = server.requests
        server.fail_first = -1  # from now on every request is refused
        code, output = _run(plans, server.url, limit=6, retries=1)
    assert code == 2
    assert (f"model {MODEL} at {server.url} failed: rate limited (HTTP 429): gave up after retrying with backoff "
            f"(--max-retries) ({len(kept)} of ") in output
    assert "Traceback" not in output and len(output.strip().splitlines()) <= 2  # the progress line and the error
    assert server.requests - before <= 2 * 3  # two tries of inspect's, each with the client's three, then it stops
    assert _answers(plans) == kept  # what was answered before is still there
    # another endpoint (no cached answer for it) that refuses everything: the earlier run's files stay as they were
    run_file = next((plans / "models").glob("*.run.json"))
    recorded = run_file.read_text()
    with fake_openai(fail_first=-1) as other:
        code, output = _run(plans, other.url, limit=1, retries=0)
    assert code == 2 and "(no answers yet; run again to resume)" in output
    assert run_file.read_text() == recorded and _answers(plans) == kept


def test_an_endpoint_that_never_answers_times_out_per_try_and_ends_in_one_line(tmp_path: Path) -> None:
    plans = simulate("worldsense", tmp_path / "ws")
    with fake_openai(hang=True) as server:
        code, output = _run(plans, server.url, 2, 1, "--timeout", "1")
    assert code == 2 and "Traceback" not in output
    assert (f"model {MODEL} at {server.url} failed: no answer within --timeout: gave up after retrying with backoff "
            "(--max-retries) (no answers yet; run again to resume)") in output
    assert server.requests == 2  # one try and one retry, each abandoned after --timeout
