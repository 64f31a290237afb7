"""Attention checks scored from the records on disk as the session runs: declared items with a known answer (the
record's own correctness) or an instructed response. The result is reported (dashboard, Sessions screen, end
record) and decides the ``failed_attention`` outcome by the declared rule; nothing is ever deleted for it."""

from __future__ import annotations

from dataclasses import dataclass

from benchlab.annotations.online.config import Attention
from benchlab.annotations.online.session_files import OnDisk, responses


@dataclass(frozen=True)
class AttentionScore:
    """Checks answered so far, how many failed, and whether the declared rule is met."""

    answered: int
    failed: int
    declared: int
    fail_at: int

    @property
    def failed_rule(self) -> bool:
        return self.declared > 0 and self.failed >= self.fail_at

    def text(self) -> str:
        """``"1 of 2 failed"`` (or ``""`` when the study declares none)."""
        if not self.declared:
            return ""
        return f"{self.failed}/{self.answered} failed" + (" (rule met)" if self.failed_rule else "")


def score(checks: Attention, disk: OnDisk) -> AttentionScore:
    """Score the declared checks against what the participant's results log holds now."""
    by_item = {a.item: a for a in disk.answers}
    given = responses(disk.results_path) if any(c.answer is not None for c in checks.items) else {}
    answered = failed = 0
    for check in checks.items:
        if check.answer is not None:
            if check.item in given:
                answered += 1
                failed += given[check.item].strip().lower() != check.answer.strip().lower()
        elif check.item in by_item and by_item[check.item].correct is not None:
            answered += 1
            failed += by_item[check.item].correct is False
    return AttentionScore(answered, failed, len(checks.items), checks.fail_at)
