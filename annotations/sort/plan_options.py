"""The plan options of a SORT session, declared once (``benchlab run sort``, the launcher form, resume warnings).

Kept apart from :mod:`benchlab.annotations.sort.session` so that declaring the task (and so building the command
line) does not load the data stack (pandas) that running a session needs.
"""

from __future__ import annotations

from typing import Any, Literal

from benchlab.annotations.options import OptionError, Options, field_validator, model_validator, option
from benchlab.data.sort.distance_bins import distance_bin_edges

Condition = Literal["stm", "ltm"]
Design = Literal["excerpt", "whole-book"]
#: The whole-book design's gap bins (``len(benchlab.data.sort.whole_book.GAP_EDGES) - 1``, a test checks; not
#: imported, as that module loads scipy and this one is read to build the command line).
WHOLE_BOOK_BINS = 8


class SortPlanOptions(Options):
    """The design knobs of a SORT session (``benchlab run sort`` and the launcher form).

    ``excerpt_length``, ``segment_length`` and ``book`` select the trials; the others shape the plan and the trial
    screen (they are saved in the plan's ``config``).
    """

    excerpt_length: int = option(250, label="Excerpt length in words (250, 1000, ...)", short="-e",
                                 help="Excerpt length L_E.")
    segment_length: int = option(20, label="Segment length in words (20 or 50)", short="-s",
                                 help="Segment length L_S.")
    book: str | None = option(None, label="Book (Gutenberg id or part of the title; empty: all)",
                              help="Book: Gutenberg id or part of the title (default: all in the data).")
    condition: Condition = option("stm", label="Condition", problem="must be stm or ltm, not {input!r}",
                                  help="stm: read the excerpt, then answer; ltm: book title and segments only.")
    design: Design = option("excerpt", label="Design", problem="must be excerpt or whole-book, not {input!r}",
                            help="excerpt: BookSORT's trials (both segments from one excerpt); whole-book: the paper's "
                            "human design, pairs from across the whole book in 8 gap bins (LTM only; the excerpt "
                            "length is the book's; default data: the bundled whole-book sample).")
    trials: int = option(20, label="Scored trials", ge=1,
                         help="Scored trials, spread evenly over the 4 distance bins (and A/B inside each bin).")
    practice: int = option(2, label="Practice trials", ge=0, problem="cannot be negative",
                           help="Practice trials (validation split).")
    block_size: int = option(10, label="Trials per block", ge=1, help="Trials per block; a break between blocks.")
    delay_s: float = option(0.0, label="Delay between reading and question (s)", flag="--delay", ge=0,
                            problem="cannot be negative",
                            help="Seconds between the end of reading and the question (a blank wait screen).")
    min_reading_s: float = option(0.0, label="Minimum reading time (s)", flag="--min-reading", ge=0,
                                  problem="cannot be negative",
                                  help="Seconds before the participant may continue from the excerpt.")
    max_reading_s: float | None = option(None, label="Maximum reading time (s)", flag="--max-reading",
                                         help="Seconds after which the question appears anyway.")
    min_seen_share: float = option(1.0, label="Share of the passage seen before continuing", flag="--min-seen",
                                   ge=0, le=1, help="STM: the share of the excerpt's lines that must have been on "
                                   "screen before Enter continues (1 = scrolled to the end; on a small terminal "
                                   "a participant once continued after 68%). Each trial records its seen_share.")

    read_days_ago: float | None = option(None, label="Days since the participant read the book (whole-book)",
                                         flag="--read-days-ago", ge=0, problem="cannot be negative",
                                         help="Whole-book LTM: how long ago the participant finished reading the "
                                         "book, in days (asked before the session; stored in the plan and "
                                         "reported by compare).")

    shared_items: bool = option(False, label="Shared item list (every participant the same trials)",
                                help="Every participant gets the same trials (and practice trials), each in their "
                                "own order, so item effects and agreement between people are estimable (default: "
                                "each participant's own draw). The list depends only on the data and these options.")

    @field_validator("condition", "design", mode="before")
    @classmethod
    def _any_case(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("book", mode="before")
    @classmethod
    def _blank_is_all(cls, value: object) -> object:
        return (value.strip() or None) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _reading_window(self) -> SortPlanOptions:
        if self.max_reading_s is not None and self.max_reading_s <= self.min_reading_s:
            raise OptionError("max_reading_s", "must be longer than the minimum reading time",
                              label="the maximum reading time")
        if self.design == "whole-book" and self.condition != "ltm":
            raise OptionError("design", "is a long-term memory design: its excerpt is the whole book (use it with "
                              "{condition} ltm)", label="the whole-book design", lead=False)
        bins = self.bins()
        if self.trials < bins:  # fewer, and some bin gets no trial: the design factor is not measured
            kind = "gap" if self.design == "whole-book" else "distance"
            raise OptionError("trials", f"must be at least {bins}: scored trials are spread evenly over the {bins} "
                              f"{kind} bins, at least one in each", label="Scored trials")
        return self

    def bins(self) -> int:
        """How many bins the scored trials are spread over: an excerpt's distance bins, or the book's gap bins."""
        if self.design == "whole-book":
            return WHOLE_BOOK_BINS
        return len(distance_bin_edges(self.excerpt_length, self.segment_length)) - 1

    def config(self) -> dict[str, Any]:
        return {"condition": self.condition, **({"design": self.design} if self.design != "excerpt" else {}),
                "delay_s": self.delay_s, "min_reading_s": self.min_reading_s,
                "max_reading_s": self.max_reading_s, "block_size": self.block_size,
                "min_seen_share": self.min_seen_share,
                **({"since_reading_h": 24 * self.read_days_ago} if self.read_days_ago is not None else {}),
                **({"shared_items": True} if self.shared_items else {})}
