"""A score with its CI and the numbers behind it: one cell of a comparison table or figure."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FigureCell:
    """A score with its CI, and the numbers of participants and units behind it (for tables and plots)."""

    value: float
    ci_low: float
    ci_high: float
    n_units: int
    n_participants: int = 1
    method: str = ""
    extra: dict[str, object] = field(default_factory=dict)

    def text(self, scale: float = 100, digits: int = 1) -> str:
        if self.value != self.value:
            return ""
        v = f"{self.value * scale:.{digits}f}"
        if self.ci_low != self.ci_low:
            return f"{v} [CI n/a]" if self.extra.get("ci_note") else v
        return f"{v} [{self.ci_low * scale:.{digits}f}, {self.ci_high * scale:.{digits}f}]"
