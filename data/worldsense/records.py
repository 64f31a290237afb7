"""Typed records of WorldSense's two file formats: one trial of a test set, one line of a results file.

Keys are signed 64-bit integers larger than 2**53, so they are validated as exact Python ints (never floats,
bools or strings) and range-checked. ``resp`` is strictly a string: "1" must stay "1" (pandas' type guessing
turned it into an int and silently scored 0%, spec section 10.1).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator

from benchlab.data.worldsense.rules import GOLD_OBFUSCATION_INVERSE, INT64_MAX, INT64_MIN, deobfuscate, is_correct

#: An exact signed 64-bit integer id.
Key = Annotated[StrictInt, Field(ge=INT64_MIN, le=INT64_MAX)]


class TrialPrompt(BaseModel):
    """What a participant may see of a trial: no gold answer, nothing derived from it."""

    model_config = ConfigDict(frozen=True)

    Key: Key
    tuple_ID: str
    problemname: str
    text: str
    expectedresp: tuple[str, ...]


class Trial(BaseModel):
    """One line of ``trials.jsonl(.bz2)``, with the gold answer de-obfuscated into ``goldresp``.

    ``goldresp`` is hidden from ``repr`` so logging a trial does not print the answer; use :meth:`prompt` for
    anything put in front of a participant.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    Key: Key
    problemname: StrictStr
    tuple_ID: StrictStr
    text: StrictStr
    expectedresp: tuple[StrictStr, ...] = Field(min_length=1)
    span: StrictInt
    descr: StrictStr
    query: StrictStr
    objects: tuple[StrictStr, ...]
    problemsize: StrictInt
    skin: StrictStr
    qskin: StrictStr
    complexity: StrictStr
    query_len: StrictInt
    goldresp: StrictStr = Field(repr=False)

    @model_validator(mode="before")
    @classmethod
    def _deobfuscate(cls, data: Any) -> Any:
        """Accept the published ``goldresp_obfusc`` (or a plain ``goldresp``) and store the real answer."""
        if isinstance(data, dict) and "goldresp" not in data and "goldresp_obfusc" in data:
            data = dict(data)
            obf = data.pop("goldresp_obfusc")
            data["goldresp"] = deobfuscate(obf) if isinstance(obf, str) else obf
        return data

    @model_validator(mode="after")
    def _gold_is_an_option(self) -> Trial:
        if self.goldresp not in self.expectedresp:
            raise ValueError(
                f"gold answer {self.goldresp!r} is not one of expectedresp {list(self.expectedresp)} "
                "(unknown obfuscated value?)"
            )
        return self

    def prompt(self) -> TrialPrompt:
        """The participant-safe view of this trial."""
        return TrialPrompt(
            Key=self.Key, tuple_ID=self.tuple_ID, problemname=self.problemname, text=self.text,
            expectedresp=self.expectedresp,
        )

    def is_correct(self, resp: str) -> bool:
        """Scoring rule for one item (same as the tables: "1" and "2" are both correct for a decidable gold)."""
        return is_correct(resp, self.goldresp)

    def to_published(self) -> dict[str, Any]:
        """The record as it appears in a published trials file (gold obfuscated again, 15 fields)."""
        data = self.model_dump(mode="json")
        gold = data.pop("goldresp")
        data["goldresp_obfusc"] = GOLD_OBFUSCATION_INVERSE.get(gold, gold)
        return data


class ResultLine(BaseModel):
    """One line of ``<prompting>___<modelname>___results.jsonl``: a Key and the answer string.

    Extra fields (response times, participant id, session, ...) are kept as they are and ignored by scoring.
    ``resp`` is ``""`` when there was no valid answer.
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    Key: Key
    resp: StrictStr

    @property
    def extras(self) -> dict[str, Any]:
        """Fields beyond Key and resp, in file order."""
        return dict(self.__pydantic_extra__ or {})
