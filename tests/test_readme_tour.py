"""The README's five-minute tour runs as written on the bundled sample, and the output it quotes is real.

A newcomer pastes the tour first; a renamed flag or a changed table would fail them on their first day. The tour's
bash block is run verbatim (in a scratch folder under ``tmp_path``), and every line of the excerpts the README shows
must appear in what the commands print (an excerpt line cut with ``...`` must match up to the cut).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def tour_section() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"\n## Five-minute tour\n(.*?)\n## ", text, re.S)
    assert match, "README lost its '## Five-minute tour' section"
    return match.group(1)


def blocks(section: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)\n```", section, re.S)


@pytest.mark.slow
def test_the_five_minute_tour_runs_as_written_and_prints_what_the_readme_quotes(tmp_path: Path) -> None:
    section = tour_section()
    (script,) = blocks(section, "bash")
    env = {**os.environ, "TMPDIR": str(tmp_path), "MPLBACKEND": "Agg",
           # benchlab from the interpreter running the tests, wherever its environment lives
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    done = subprocess.run(["bash", "-e", "-c", script + "\npwd"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    shown = done.stdout + done.stderr
    scratch = Path(done.stdout.splitlines()[-1])
    assert scratch.is_relative_to(tmp_path), "the tour must write only in its scratch folder"
    assert (scratch / "fig.png").stat().st_size > 10_000 and "figure written to fig.png" in shown
    assert sorted(p.name for p in (scratch / "lab/ws/results").iterdir()) == [
        "basic___human-PILOT___results.jsonl", "basic___human-RAND___results.jsonl"]
    quoted = [line.split("  ...")[0].rstrip() for block in blocks(section, "text") for line in block.splitlines()]
    quoted += re.findall(r"`(human-\w+ +[\d.]+ \([\d.]+\))`", section)
    assert len(quoted) > 8
    missing = [line for line in quoted if line not in shown]
    assert missing == [], f"the README quotes output the tour does not print: {missing}"
