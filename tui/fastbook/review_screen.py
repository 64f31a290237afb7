"""Review two curators' versions: every disagreement in a list; for the one under the cursor, both versions with
their audit marks (is each context in the chapter, can the scorer match it), the chapter text around them and the
question's scores under each version; the reviewer takes A, B or writes their own, then saves a merged file.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from benchlab.annotations.fastbook.editor_model import CurateModel
from benchlab.annotations.fastbook.review import Disagreement, Review
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import Component
from benchlab.data.fastbook.chapters import Chapter
from benchlab.data.fastbook.runs import Run
from benchlab.tui.fastbook.context_text_edit import ContextTextEdit
from benchlab.tui.fastbook.curate_confirm import CurateConfirm
from benchlab.tui.fastbook.question_detail import MARK_SYMBOL

CONTEXT_AROUND = 240  # characters of chapter text shown before and after the versions' passages


class CurateReviewScreen(Screen[None]):
    CSS_PATH = "review_screen.tcss"
    BINDINGS = [
        Binding("a", "take('A')", "Take A"),
        Binding("b", "take('B')", "Take B"),
        Binding("e", "edit", "Edit"),
        Binding("u", "undecide", "Undecide"),
        Binding("n", "next_pending", "Next open"),
        Binding("ctrl+s", "save", "Save merged", priority=True),
        Binding("q", "quit_review", "Quit"),
    ]

    def __init__(self, review: Review, chapters: dict[int, Chapter], runs: list[Run], *, k: int = 10,
                 output: Path | None = None, exit_app_on_quit: bool = True) -> None:
        super().__init__()
        self.review = review
        self.chapters = chapters
        self.output = output or review.default_output()
        self.model_a = CurateModel(review.a, chapters, runs, k=k)
        self.model_b = CurateModel(review.b, chapters, runs, k=k)
        self.k = k
        self.exit_app_on_quit = exit_app_on_quit
        self.saved_decisions: dict[int, object] | None = {}

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="review-main"):
            yield OptionList(id="disagreements")
            with VerticalScroll(id="versions"):
                yield Static(id="question")
                yield Static(id="version-a", classes="version")
                yield Static(id="version-b", classes="version")
                yield Static(id="chapter-text")
                yield Static(id="scores")
        yield Static(id="review-status")
        yield Footer()

    def on_mount(self) -> None:
        r = self.review
        self.app.sub_title = f"review: A={r.path_a.name} B={r.path_b.name} · reviewer {r.reviewer}"
        listing = self.query_one("#disagreements", OptionList)
        listing.border_title = f"{len(r.items)} disagreements"
        self._fill()
        if r.items:
            listing.highlighted = 0
            listing.focus()
            self._show(0)
        else:
            self.query_one("#question", Static).update("The two files agree on every component: nothing to review.")
        self._status()

    # -- views ------------------------------------------------------------------------------------------------
    def _line(self, n: int, item: Disagreement) -> Text:
        choice = self.review.decisions.get(n, (None, None))[0]
        state = {"A": ("A", "green"), "B": ("B", "green"), "edited": ("edited", "cyan")}.get(
            choice or "", ("open", "yellow"))
        return Text.assemble(f"ch{item.qid[0]} q{item.qid[1]} c{item.index}  ", (f"[{state[0]}] ", state[1]),
                             (item.what, "dim"))

    def _fill(self) -> None:
        listing = self.query_one("#disagreements", OptionList)
        keep = listing.highlighted
        listing.clear_options()
        listing.add_options([Option(self._line(n, item), id=str(n)) for n, item in enumerate(self.review.items)])
        if keep is not None and self.review.items:
            listing.highlighted = min(keep, len(self.review.items) - 1)

    @property
    def current(self) -> int | None:
        return self.query_one("#disagreements", OptionList).highlighted

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index is not None:
            self._show(event.option_index)

    def _version(self, label: str, model: CurateModel, chapter: int, component: Component | None) -> Group | Text:
        if component is None:
            return Text(f"{label}: (no such component in this file)", style="italic")
        text = component.answer_component if isinstance(component.answer_component, str) else " / ".join(
            component.answer_component)
        lines: list[Text] = [Text.assemble((f"{label}  ", "bold"), (f"explicit={component.explicit_context}  "
                                           f"extraneous={component.extraneous_answer}", "dim")),
                             Text(text, style="italic")]
        if not component.context:
            lines.append(Text("  (no context)", style="yellow"))
        for context in component.context:
            mark = model.check(chapter, context)
            symbol, style = MARK_SYMBOL.get(mark.state, ("?", ""))
            reason = "" if mark.state == "ok" else f"  ({mark.reason})"
            lines.append(Text.assemble((f"  {symbol} ", style), f"“{context}”", (reason, "dim")))
        return Group(*lines)

    def _show(self, n: int) -> None:
        item = self.review.items[n]
        question = self.review.a.question(item.qid)
        self.query_one("#question", Static).update(Text.assemble(
            (f"Chapter {item.qid[0]}, question {item.qid[1]}, component {item.index}: {item.what}\n", "bold"),
            question.display_text, "\n", ("Gold answer: ", "bold"), question.gold_standard_answer))
        self.query_one("#version-a", Static).update(self._version(f"A ({self.review.path_a.name})", self.model_a,
                                                                   item.qid[0], item.a))
        self.query_one("#version-b", Static).update(self._version(f"B ({self.review.path_b.name})", self.model_b,
                                                                   item.qid[0], item.b))
        self.query_one("#chapter-text", Static).update(self._chapter_excerpt(item))
        self.query_one("#scores", Static).update(self._scores(item))
        decided = self.review.decisions.get(n)
        if decided is not None and decided[0] == "edited" and decided[1] is not None:
            self.query_one("#version-b", Static).update(Group(
                self._version(f"B ({self.review.path_b.name})", self.model_b, item.qid[0], item.b),
                Text(""), self._version("Your version", self.model_a, item.qid[0], decided[1])))

    def _chapter_excerpt(self, item: Disagreement) -> Text:
        chapter = self.chapters.get(item.qid[0])
        if chapter is None:
            return Text("(no chapter text loaded)", style="dim")
        spans = [span for component in (item.a, item.b) if component is not None for context in component.context
                 for span in self.model_a.occurrences(item.qid[0], context)[:1]]
        if not spans:
            return Text("Neither version's passages are in the chapter text.", style="dim")
        start = max(0, min(s for s, _ in spans) - CONTEXT_AROUND)
        end = min(len(chapter.text), max(e for _, e in spans) + CONTEXT_AROUND)
        if end - start > 4 * CONTEXT_AROUND + 1200:
            end = start + 4 * CONTEXT_AROUND + 1200
        excerpt = Text(chapter.text[start:end])
        for s, e in spans:
            if s < end and e > start:
                excerpt.stylize("reverse", max(0, s - start), min(end, e) - start)
        return Text.assemble((f"Chapter {item.qid[0]}, characters {start:,}-{end:,} (passages highlighted):\n",
                              "bold"), excerpt)

    def _scores(self, item: Disagreement) -> Text:
        rows_a = {r.name: r for r in self.model_a.score_rows(item.qid)}
        rows_b = {r.name: r for r in self.model_b.score_rows(item.qid)}
        if not rows_a:
            return Text("No retrieval runs loaded (--runs RUN.jsonl shows what each version does to the scores).",
                        style="dim")
        out = Text(f"This question's scores under each version (MRR@{self.k} / Recall@{self.k}):\n", style="bold")
        for name, row_a in rows_a.items():
            row_b = rows_b.get(name)
            b_part = f"{row_b.q_mrr:.4f} / {row_b.q_recall:.4f}" if row_b is not None and row_b.q_mrr is not None \
                else "-"
            a_part = f"{row_a.q_mrr:.4f} / {row_a.q_recall:.4f}" if row_a.q_mrr is not None else "-"
            out.append(f"  {name}: A {a_part}   B {b_part}\n")
        return out

    def _status(self, message: str = "") -> None:
        r = self.review
        done = len(r.decisions)
        head = f"{done} of {len(r.items)} decided; undecided ones keep A's version. Save writes {self.output}"
        self.query_one("#review-status", Static).update(Text.assemble(head, ("  " + message, "italic")))

    # -- actions ----------------------------------------------------------------------------------------------
    def _after_decision(self, n: int, message: str) -> None:
        self.saved_decisions = None
        self._fill()
        self._show(n)
        self._status(message)

    def action_take(self, side: str) -> None:
        n = self.current
        if n is None:
            return
        self.review.decide(n, "A" if side == "A" else "B")
        self._after_decision(n, f"took {side}'s version")
        self.action_next_pending()

    def action_undecide(self) -> None:
        n = self.current
        if n is not None:
            self.review.undecide(n)
            self._after_decision(n, "decision taken back")

    def action_edit(self) -> None:
        """Your own contexts: one passage per line, each checked against the chapter text."""
        n = self.current
        if n is None:
            return
        item = self.review.items[n]
        decided = self.review.decisions.get(n)
        base = (decided[1] if decided is not None else None) or item.a or item.b
        if base is None:
            return
        chapter = item.qid[0]

        def check(value: str) -> str | None:
            for line in (x.strip() for x in value.splitlines()):
                if line and (problem := self.model_a.refusal(chapter, line)):
                    return f"“{line[:40]}”: {problem}"
            return None

        def edited(value: str | None) -> None:
            if value is None:
                return
            contexts = [x.strip() for x in value.splitlines() if x.strip()]
            mine = base.model_copy(deep=True)
            mine.context = contexts
            self.review.decide(n, "edited", mine)
            self._after_decision(n, "your version recorded")

        self.app.push_screen(ContextTextEdit(f"Contexts of ch{chapter} q{item.qid[1]} component {item.index}, one "
                                             "passage per line", "\n".join(base.context), check), edited)

    def action_next_pending(self) -> None:
        pending = self.review.pending
        if not pending:
            self._status("every disagreement is decided: ctrl+s saves the merged file")
            return
        n = self.current or 0
        following = [i for i in pending if i > n] or pending
        self.query_one("#disagreements", OptionList).highlighted = following[0]

    def action_save(self) -> None:
        pending = len(self.review.pending)

        def save(ok: bool | None = True) -> None:
            if not ok:
                return
            try:
                out = self.review.save(self.output)
            except BenchlabError as exc:
                self.notify(str(exc), title="Not saved", severity="error", timeout=12)
                self._status(f"not saved: {exc}")
                return
            self.saved_decisions = dict(self.review.decisions)
            self._status(f"saved {out} (and its change log)")

        if pending:
            self.app.push_screen(CurateConfirm(f"{pending} disagreement{'s are' if pending != 1 else ' is'} "
                                               "undecided and will keep A's version. Save anyway?", yes="Save"), save)
        else:
            save()

    def action_quit_review(self) -> None:
        def leave(ok: bool | None = True) -> None:
            if not ok:
                return
            if self.exit_app_on_quit:
                self.app.exit()
            else:
                self.dismiss(None)

        if self.saved_decisions is None and self.review.decisions:
            self.app.push_screen(CurateConfirm("Your decisions are not saved. Quit without saving?",
                                               yes="Quit without saving"), leave)
        else:
            leave()
