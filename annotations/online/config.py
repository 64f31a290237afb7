"""The ``[online]`` section of ``study.toml``: which platform recruits, quotas, time limits, attention checks and
what each way of ending a session gives the participant (a completion code and/or a redirect URL).

Declared here (not in :mod:`benchlab.annotations.study`) so the study file gains one optional table and the rules
of online recruitment stay in one module; ``study.py`` only names the model.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Platform = Literal["prolific", "sona", "mturk", "generic"]
#: Every way an online session ends, in the order the study file's template lists them.
OUTCOMES = ("completed", "declined", "screened_out", "failed_attention", "withdrew", "timed_out")

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$")
_CODE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def duration_s(value: str | int | float | None) -> float | None:
    """Seconds of a duration written ``90`` (seconds), ``"90s"``, ``"45m"`` or ``"2h"``; ``None`` stays ``None``."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value <= 0:
            raise ValueError("must be more than 0")
        return float(value)
    found = _DURATION.match(str(value))
    if not found:
        raise ValueError(f"{value!r} is not a duration (write 90s, 45m or 2h)")
    number = float(found.group(1)) * {"s": 1, "m": 60, "h": 3600, None: 1}[found.group(2)]
    if number <= 0:
        raise ValueError("must be more than 0")
    return number


class Completion(BaseModel):
    """What one outcome gives the participant: a code shown as text, a redirect, or both."""

    model_config = ConfigDict(extra="forbid")

    code: str | None = Field(None, description="Completion code shown (and sent as {code} in the redirect).")
    redirect: str | None = Field(None, description="URL the page sends the participant to; {code} is replaced "
                                 "by the code, e.g. https://app.prolific.com/submissions/complete?cc={code}, and "
                                 "{id} by the participant's platform id (SONA's survey code) when the page shows.")

    @field_validator("code")
    @classmethod
    def _code(cls, value: str | None) -> str | None:
        if value is not None and not _CODE.match(value):
            raise ValueError("a completion code is 1-64 letters, digits, '_' or '-'")
        return value

    @field_validator("redirect")
    @classmethod
    def _redirect(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^\s<>\"']+$", value):
            raise ValueError("a redirect is an http(s) URL without spaces or quotes")
        return value


class AttentionItem(BaseModel):
    """One attention check: an item of the plan whose answer is known (scored from its record's correctness), or
    an instructed response (``answer``: the response the item's text asks for)."""

    model_config = ConfigDict(extra="forbid")

    item: str = Field(description="The item id (as in the plan and results).")
    answer: str | None = Field(None, description="The instructed response; without it the item's own key scores.")


class Attention(BaseModel):
    """Attention checks and the declared rule (Prolific's: a rejection needs at least two failed checks)."""

    model_config = ConfigDict(extra="forbid")

    items: list[AttentionItem] = Field(default_factory=list)
    fail_at: int = Field(2, ge=1, description="This many failed checks give the failed_attention outcome.")


class OnlineSection(BaseModel):
    """``[online]``: recruitment from one study link."""

    model_config = ConfigDict(extra="forbid")

    platform: Platform = Field("prolific", description="prolific | sona | mturk | generic: which URL parameters "
                               "carry the participant id.")
    quota: int | None = Field(None, ge=1, description="Places in total (consented sessions not abandoned).")
    arm_quotas: dict[str, int] = Field(default_factory=dict, description="Places per arm (arm name -> count).")
    abandon_after: str | float | None = Field("60m", description="A session idle this long frees its place "
                                              "(its data kept, marked abandoned).")
    time_limit: str | float | None = Field(None, description="Longest session from consent (e.g. 45m): past it "
                                           "the participant gets the timed_out outcome.")
    completion: dict[str, Completion] = Field(default_factory=dict, description="Outcome -> code and/or redirect.")
    attention: Attention = Field(default_factory=Attention)
    withdrew_decision: Literal["approve", "review"] = Field(
        "approve", description="What study reconcile proposes for the submission of a person who withdrew their "
        "data (approve: withdrawing costs them nothing; review: decide each by hand).")
    require_computer: bool = Field(False, description="Only a computer (mouse or trackpad) may take part: a phone "
                                   "or tablet gets the 'please use a computer' page and the screened_out outcome "
                                   "before consent; nothing is recorded and no place is taken.")

    @field_validator("abandon_after", "time_limit")
    @classmethod
    def _duration(cls, value: str | float | None) -> str | float | None:
        duration_s(value)
        return value

    @field_validator("completion")
    @classmethod
    def _outcomes(cls, value: dict[str, Completion]) -> dict[str, Completion]:
        unknown = sorted(set(value) - set(OUTCOMES))
        if unknown:
            raise ValueError(f"outcome {unknown[0]!r} is not one of {', '.join(OUTCOMES)}")
        return value

    @field_validator("arm_quotas")
    @classmethod
    def _quotas(cls, value: dict[str, int]) -> dict[str, int]:
        if any(n < 1 for n in value.values()):
            raise ValueError("an arm quota is at least 1")
        return value

    @model_validator(mode="after")
    def _completed_pays(self) -> OnlineSection:
        done = self.completion.get("completed")
        if done is None or not (done.code or done.redirect):
            raise ValueError("completion.completed needs a code or a redirect (what a finished participant gets)")
        return self

    @property
    def abandon_after_s(self) -> float | None:
        return duration_s(self.abandon_after)

    @property
    def time_limit_s(self) -> float | None:
        return duration_s(self.time_limit)


def online_template(platform: Platform = "prolific") -> str:
    """The commented ``[online]`` section ``benchlab study init --online`` appends to the study file."""
    return "\n".join([
        "# Online recruitment: benchlab serve --study THIS_FOLDER prints one study link /join/<token>.",
        "[online]",
        f'platform = "{platform}"       # prolific | sona | mturk | generic (which URL parameters carry the id)',
        "quota = 40                  # places in total (consented, not abandoned)",
        "# arm_quotas = { stm = 20, ltm = 20 }",
        'abandon_after = "60m"       # an idle session frees its place (its data kept, marked abandoned)',
        '# time_limit = "45m"        # from consent; past it: the timed_out outcome',
        "# require_computer = true    # phones/tablets get 'please use a computer' (the screened_out outcome)",
        '# withdrew_decision = "approve"  # study reconcile on a withdrawn person\'s submission: approve | review',
        "",
        "# What each ending gives: a code shown with a copy button and/or a redirect ({code} is replaced).",
        "[online.completion.completed]",
        'code = "C1A2B3C4"',
        'redirect = "https://app.prolific.com/submissions/complete?cc={code}"',
        "[online.completion.declined]",
        'code = "NOCONSENT"',
        "# [online.completion.screened_out]",
        '# code = "SCREENED"',
        "# [online.completion.failed_attention]",
        '# code = "ATTFAIL"',
        "# [online.completion.withdrew]",
        '# code = "WITHDREW"',
        "# [online.completion.timed_out]",
        '# code = "TIMEOUT"',
        "",
        "# Attention checks: items of the plan with a known answer (or an instructed response), and the rule.",
        "# [online.attention]",
        "# fail_at = 2                # Prolific: a rejection needs two failed fair checks",
        '# items = [ { item = "ITEM-ID" }, { item = "ITEM-ID-2", answer = "B" } ]',
        "",
    ])
