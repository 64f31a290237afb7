"""The human WorldSense record: one line of the results format plus timing and provenance.

The format models and people share (``Key`` as an exact integer, ``resp`` as the exact option string; naming,
reading and scoring) is :mod:`benchlab.data.worldsense.results`; the fields only a person's session produces
(response times, participant and session, the interruption marks) are this record's, and it reaches disk through
the core :class:`~benchlab.annotations.response_log.ResponseLog` (one fsynced JSON line per trial), as SORT's
row does through its log in :mod:`benchlab.annotations.sort.human_record`. A session adds ``stimulus_sha256`` and
``prompt_sha256`` after these fields (the text shown and the item's model prompt, hashed as
:mod:`benchlab.data.models.hashing` does): proof that people and models answered the same items. None of the extra
fields reuses a trial field name, which would make the original ``analyse_results.py`` join produce ``_x``/``_y``
columns.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr

from benchlab.data.version import __version__


class HumanResponse(BaseModel):
    """One line of a human results file (WorldSense results format plus timing and provenance)."""

    model_config = ConfigDict(extra="forbid")

    Key: StrictInt
    resp: StrictStr
    rt_ms: float | None
    onset_mono: float | None
    response_mono: float | None
    requested_mono: float | None = None
    handler_mono: float | None = None
    onset_source: str = ""
    timestamp: str
    participant: str
    session: str
    trial_index: int
    block: int
    practice: bool
    skipped: bool = False
    input: str = "key"
    ignored_keys: int = 0
    simulated: str | None = None
    plan_seed: int
    benchlab_version: str = __version__
    interrupted: bool = False  # the experimenter menu interrupted the trial; rt_ms is from the fresh onset
    first_onset_mono: float | None = None  # onset of the trial's first showing (interrupted trials only)


class WebHumanResponse(HumanResponse):
    """The line of a response given in a web browser: the same fields, then the page's own timing (the results
    format keeps extra fields, so the scorers read it unchanged; terminal sessions write :class:`HumanResponse`)."""

    client_rt_ms: float | None = None  # page keydown minus page onset of the stimulus (performance.now(), ms)
    client_onset_ms: float | None = None  # the page painted the stimulus (page clock, ms)
    client_key_ms: float | None = None  # the page's keydown (page clock, ms)
    client_clock_offset_ms: float | None = None  # page clock minus the server's monotonic clock (ms), estimated
    # The native web page's conduct marks (absent from responses given in the terminal-in-browser page).
    interruptions: int | None = None  # how often the trial was shown again (reload, reconnect)
    hidden_ms: float | None = None  # time the tab was hidden while the trial was on screen
    blurs: int | None = None  # times the window lost focus while the trial was on screen
    clipboard_attempts: int | None = None  # blocked copy/cut/paste/context-menu attempts on the trial
