"""The human SORT record: the results format's columns plus timing and provenance, and the log a session appends it to.

The columns models and people share (and reading them for scoring) are the format's, in
:mod:`benchlab.data.sort.results`; what only a person's session produces (response times, the reading phase,
participant and session, the interruption marks) and how it reaches disk (one fsynced CSV row per trial, a torn
last row cut on resume) live here, beside the session that writes them, as WorldSense's do in
:mod:`benchlab.annotations.worldsense.human_record`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from benchlab.data.atomic import append_bytes
from benchlab.data.errors import BenchlabError
from benchlab.data.record_log import KeyedRecordLog
from benchlab.data.sort.records import BookSortRecord
from benchlab.data.sort.results_format import DATASET_COLUMNS, SCORE_COLUMNS, Answer
from benchlab.data.text_io import read_csv_records
from benchlab.data.version import __version__

HUMAN_EXTRA_COLUMNS = [
    "trial_id", "participant", "session", "condition", "trial_index", "block", "practice", "seed",
    "rt_ms", "reading_ms", "reading_timed_out", "delay_ms", "excerpt_onset_mono", "continue_mono",
    "question_onset_mono", "response_mono", "handler_mono", "wall_clock", "input", "ignored_keys", "simulated",
    "benchlab_version", "onset_source",
    # Added later, at the end so that files written before still read (see LEGACY_HUMAN_COLUMNS).
    "interrupted", "first_onset_mono",
    # Added with the whole-book design and the scroll record (see PREVIOUS_HUMAN_COLUMNS).
    "design", "seen_share",
    # Added with `benchlab models` (see SEEN_SHARE_HUMAN_COLUMNS): what was shown and the model prompt, hashed.
    "stimulus_sha256", "prompt_sha256",
    # Added with the native web page: the page's own timing and conduct marks (see WEB_LESS_HUMAN_COLUMNS).
    "client_rt_ms", "client_onset_ms", "client_key_ms", "client_clock_offset_ms", "interruptions", "hidden_ms",
    "blurs", "clipboard_attempts",
]
#: The leading unnamed column mirrors the pandas index the original writes, so ``read_csv(index_col=0)`` works.
HUMAN_COLUMNS = ["", *DATASET_COLUMNS, *SCORE_COLUMNS, *HUMAN_EXTRA_COLUMNS]
#: The header of human files written before ``interrupted``/``first_onset_mono`` existed: still read, and appended
#: to in their own layout (the new columns are left out of such a file).
LEGACY_HUMAN_COLUMNS = HUMAN_COLUMNS[:HUMAN_COLUMNS.index("interrupted")]
#: The header of human files written before ``design``/``seen_share`` existed (benchlab 0.1): read and appended to
#: in their own layout the same way.
PREVIOUS_HUMAN_COLUMNS = HUMAN_COLUMNS[:HUMAN_COLUMNS.index("design")]
#: The header of human files written before the hashes existed: read and appended to in their own layout.
SEEN_SHARE_HUMAN_COLUMNS = HUMAN_COLUMNS[:HUMAN_COLUMNS.index("stimulus_sha256")]
#: The header of human files written before the web page's columns existed: read and appended to in their layout.
WEB_LESS_HUMAN_COLUMNS = HUMAN_COLUMNS[:HUMAN_COLUMNS.index("client_rt_ms")]


class HumanSortRow(BaseModel):
    """One row of a human SORT results file (the model columns plus timing and provenance)."""

    model_config = ConfigDict(extra="forbid")

    book_idx: int
    excerpt_idx: int
    segment_idx: int
    seg1_pos: int
    seg2_pos: int
    distance_bin: int
    present_seg1_first: int
    excerpt_pos: float
    excerpt_text: str
    book_title: str
    num_words: int
    segment_length: int
    excerpt_length: int
    model_name: str
    A_is_first: int
    answer: Answer
    ground_truth: Literal["A", "B"]
    correct: bool
    trial_id: str
    participant: str
    session: str
    condition: Literal["stm", "ltm"]
    trial_index: int
    block: int
    practice: bool
    seed: int
    rt_ms: float | None = None
    reading_ms: float | None = None
    reading_timed_out: bool = False
    delay_ms: float | None = None
    excerpt_onset_mono: float | None = None
    continue_mono: float | None = None
    question_onset_mono: float | None = None
    response_mono: float | None = None
    handler_mono: float | None = None
    wall_clock: str = ""
    input: str = "key"
    ignored_keys: int = 0
    simulated: str | None = None
    benchlab_version: str = __version__
    onset_source: str = ""  # "frame_written" (the frame's write to the terminal) or "after_refresh" (fallback)
    interrupted: bool = False  # the experimenter menu interrupted the trial; rt_ms is from the fresh onset
    first_onset_mono: float | None = None  # the trial's first onset (excerpt in STM), for interrupted trials
    design: Literal["excerpt", "whole-book"] = "excerpt"  # the trial's design (whole-book: distance_bin is a gap bin)
    #: STM: the share of the excerpt's lines that were on screen at some point while reading (the furthest line
    #: shown / all lines, 0-1); empty in LTM, for simulated participants and when the trial was skipped unread.
    seen_share: float | None = None
    stimulus_sha256: str | None = None  # SHA-256 of what was shown (benchlab.annotations.sort.model_prompts)
    prompt_sha256: str | None = None  # SHA-256 of the model prompt for this trial (default template)
    #: The native web page's stamps (page clock, ms) and conduct marks; empty for terminal sessions.
    client_rt_ms: float | None = None
    client_onset_ms: float | None = None
    client_key_ms: float | None = None
    client_clock_offset_ms: float | None = None
    interruptions: int | None = None
    hidden_ms: float | None = None
    blurs: int | None = None
    clipboard_attempts: int | None = None

    @classmethod
    def from_trial(cls, record: BookSortRecord, answer: Answer, **extra: Any) -> HumanSortRow:
        """Score one answer with the model code's rule: ground truth A iff A is first; X is never correct."""
        dataset = {c: getattr(record, c) for c in DATASET_COLUMNS}
        truth = record.ground_truth
        return cls(**dataset, A_is_first=record.present_seg1_first, answer=answer, ground_truth=truth,
                   correct=answer == truth, trial_id=record.trial_id, design=record.design, **extra)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return repr(value)
    return str(value)


class SortResultsLog(KeyedRecordLog):
    """An append-only human results CSV with the engine's response-log interface (recover/answered/append).

    Every row is written with one ``write`` and fsynced before ``append`` returns; on reopening a torn last
    row (a killed process) is cut off and the trial ids already recorded are skipped, so nothing is duplicated.
    """

    def __init__(self, path: str | Path, id_of: Any = None) -> None:
        super().__init__(path, lambda record: str(record["trial_id"]))
        self._header = HUMAN_COLUMNS  # the layout of the file being appended to (an older file keeps its own)

    def _read_rows(self) -> Iterator[tuple[int, dict[str, Any]]]:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        # Strict UTF-8 (file:line on bad bytes); a torn last row, even one cut inside a character, is left out.
        records = read_csv_records(self.path, rows_end_with_newline=True, expected="a SORT results file")
        layouts = (HUMAN_COLUMNS, WEB_LESS_HUMAN_COLUMNS, SEEN_SHARE_HUMAN_COLUMNS, PREVIOUS_HUMAN_COLUMNS,
                   LEGACY_HUMAN_COLUMNS)
        if records.header not in layouts:
            if not records.header and records.torn_line == 1:
                return  # killed while writing the header: nothing recorded yet
            raise BenchlabError("not a benchlab human SORT results file (unexpected header); choose another --out "
                                "folder", self.path, 1)
        self._header = records.header
        for lineno, row in records.rows:
            yield lineno, dict(zip(records.header, row, strict=True))

    def _write(self, record: dict[str, Any]) -> dict[str, Any]:
        values = HumanSortRow.model_validate(record).model_dump(mode="python")
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        if not self.path.exists() or self.path.stat().st_size == 0:
            self._header = HUMAN_COLUMNS
            writer.writerow(HUMAN_COLUMNS)
        writer.writerow([str(len(self._records)), *(_cell(values[c]) for c in self._header[1:])])
        append_bytes(self.path, buf.getvalue().encode("utf-8"))
        return {k: _cell(v) for k, v in values.items()}
