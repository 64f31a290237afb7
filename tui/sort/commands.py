"""``benchlab run sort``: a SORT session (the other SORT commands are declared in ``benchlab.annotations.sort``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from benchlab.data.errors import BenchlabError
from benchlab.tui.commands.groups import run

SIMULATED = {"random": "random", "oracle": "oracle", "always-a": "biased"}


@run.command("sort")
@click.option("--participant", required=True, help="Participant id (letters, digits, '.', '-'); names the results.")
@click.option("--data", "dataset", type=click.Path(path_type=Path), default=None,
              help="BookSORT folder or file (parquet, three CSVs or JSONL). Default: the bundled sample.")
@click.option("--excerpt-length", "-e", type=int, default=250, show_default=True, help="Excerpt length L_E.")
@click.option("--segment-length", "-s", type=int, default=20, show_default=True, help="Segment length L_S.")
@click.option("--book", default=None, help="Book: Gutenberg id or part of the title (default: all in the data).")
@click.option("--condition", type=click.Choice(["stm", "ltm"]), default="stm", show_default=True,
              help="stm: read the excerpt, then answer; ltm: book title and segments only.")
@click.option("--trials", type=int, default=20, show_default=True,
              help="Scored trials, spread evenly over the 4 distance bins (and A/B inside each bin).")
@click.option("--practice", type=int, default=2, show_default=True, help="Practice trials (validation split).")
@click.option("--block-size", type=int, default=10, show_default=True, help="Trials per block; a break between blocks.")
@click.option("--delay", type=float, default=0.0, show_default=True,
              help="Seconds between the end of reading and the question (a blank wait screen).")
@click.option("--min-reading", type=float, default=0.0, show_default=True,
              help="Seconds before the participant may continue from the excerpt.")
@click.option("--max-reading", type=float, default=None, help="Seconds after which the question appears anyway.")
@click.option("--seed", type=int, default=None, help="Plan seed (default: random; it is saved with the plan).")
@click.option("--session", default="1", show_default=True, help="Session id of this participant.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Output folder (default: ./benchlab-results/sort/<data folder name>).")
@click.option("--resume", is_flag=True, help="Continue an interrupted session at its next unanswered trial.")
@click.option("--simulate", type=click.Choice(list(SIMULATED)), default=None,
              help="Run a simulated participant through the same engine and files (oracle: 100%; always-a: the "
                   "share of A ground truths; random: about 50%).")
@click.option("--sim-delay", type=float, default=0.0, help="Seconds a simulated participant waits per trial.")
@click.option("--consent", "consent_file", type=click.Path(path_type=Path), default=None,
              help="Consent text (markdown) shown first; declining ends with nothing recorded.")
@click.option("--instructions", "instructions_file", type=click.Path(path_type=Path), default=None,
              help="Instructions (markdown, pages separated by a line '---'). Default: built-in instructions.")
@click.option("--no-instructions", is_flag=True, help="Skip the instruction pages.")
def run_sort(
    participant: str, dataset: Path | None, excerpt_length: int, segment_length: int, book: str | None,
    condition: str, trials: int, practice: int, block_size: int, delay: float, min_reading: float,
    max_reading: float | None, seed: int | None, session: str, out: Path | None, resume: bool, simulate: str | None,
    sim_delay: float, consent_file: Path | None, instructions_file: Path | None, no_instructions: bool,
) -> None:
    """Run a SORT session for one participant (kiosk mode; experimenter menu: Ctrl+X then Ctrl+E).

    Responses go to OUT/results/{L_E}-s{L_S}-human_<participant>_results.csv in the SORT results layout;
    score them with ``benchlab score sort OUT/results``.
    """
    from benchlab.tui.commands.run import given_options, run_session, warn_ignored_on_resume
    from benchlab.tui.sort.task_ui import SortUI
    from benchlab.tui.task_registry import SessionRequest

    task_ui = SortUI()
    extra = {"excerpt_length": str(excerpt_length), "segment_length": str(segment_length), "condition": condition,
             "book": book or "", "delay": str(delay), "min_reading": str(min_reading),
             "max_reading": "" if max_reading is None else str(max_reading)}
    request = SessionRequest(
        dataset=str(dataset) if dataset is not None else str(task_ui.default_dataset()), participant=participant,
        session=session, out=str(out) if out else "", seed=seed, practice=practice, block_size=block_size,
        items_per_cell=trials, resume=resume, consent_file=str(consent_file) if consent_file else None,
        instructions_file=str(instructions_file) if instructions_file else None, no_instructions=no_instructions,
        simulated=simulate, extra=extra,
    )
    if sim_delay < 0:
        raise BenchlabError("--sim-delay cannot be negative")
    given = given_options({"dataset": "--data", "seed": "--seed", "trials": "--trials", "practice": "--practice",
                           "block_size": "--block-size", "delay": "--delay", "min_reading": "--min-reading",
                           "max_reading": "--max-reading"})
    if simulate is None:
        run_session(task_ui, request, given=given, planned=_sort_plan_values)
        return
    from benchlab.annotations.simulate import SimulatedParticipant, simulate_session

    runner = task_ui.prepare(request)
    warn_ignored_on_resume(runner, given, _sort_plan_values)
    try:
        participant_sim = SimulatedParticipant(SIMULATED[simulate], seed=runner.plan.seed)
        try:
            simulate_session(runner, participant_sim, delay_s=sim_delay)
        except KeyboardInterrupt:
            runner.abort()
            click.echo(runner.summary())
            raise
        click.echo(runner.summary())
    finally:
        runner.close()


def _sort_plan_values(plan: Any) -> dict[str, Any]:
    c = plan.config
    return {"--data": Path(plan.dataset), "--seed": plan.seed, "--trials": len(plan.main_items),
            "--practice": len(plan.practice), "--block-size": c.get("block_size"), "--delay": c.get("delay_s"),
            "--min-reading": c.get("min_reading_s"), "--max-reading": c.get("max_reading_s")}
