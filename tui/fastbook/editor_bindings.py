"""The keys of the fastbook context editor, in footer order: what fits on an 80-column line first ("?" lists them
all, with what each does). Kept apart from the screen so the list reads as the editor's key map."""

from __future__ import annotations

from textual.binding import Binding, BindingType

EDITOR_BINDINGS: list[BindingType] = [
    Binding("question_mark", "toggle_keys", "Keys", tooltip="Every key, with what it does"),
    Binding("ctrl+s", "save", "Save", priority=True, tooltip="Save the file (atomically, with a .bak)"),
    Binding("ctrl+z", "undo", "Undo", priority=True, tooltip="Undo the last edit"),
    Binding("ctrl+y", "redo", "Redo", priority=True, tooltip="Redo the last undone edit"),
    Binding("w", "switch_pane", "Pane", tooltip="Switch between the question and the chapter (small windows) "
            "or move the focus between them"),
    Binding("a", "add", "Add", tooltip="Add the chapter selection as a context of the item under the cursor"),
    Binding("r", "replace", "Replace", tooltip="Replace the context under the cursor by the chapter selection"),
    Binding("d,delete", "delete", "Delete", tooltip="Delete the context, question_context or component under "
            "the cursor (a component after confirming)"),
    Binding("e", "edit", "Edit text", tooltip="Edit the text of the item under the cursor (a context, a "
            "question_context's name, or a component's answer text)"),
    Binding("o", "add_component", "New component", show=False,
            tooltip="Add an answer component after the one under the cursor"),
    Binding("x", "toggle_flag('explicit_context')", "Explicit", show=False, tooltip="Toggle explicit_context"),
    Binding("n", "toggle_flag('extraneous_answer')", "Extraneous", show=False, tooltip="Toggle extraneous_answer"),
    Binding("f", "use_suggestion", "Use fix", show=False, tooltip="Use the audit's suggested fix for this context"),
    Binding("c", "add_question_context", "Q-context", show=False,
            tooltip="Add the chapter selection as a question_context"),
    Binding("j", "jump", "Jump", show=False, tooltip="Select the context under the cursor in the chapter"),
    Binding("slash", "search", "Search", show=False, tooltip="Search the chapter (enter: next match)"),
    Binding("p", "problems_only", "Problems", show=False, tooltip="List only questions with problems"),
    Binding("v", "diff", "Diff", show=False, tooltip="Show every change since the file was opened"),
    Binding("m", "toggle_done", "Done", tooltip="Mark the question done in your queue (again: not done)"),
    Binding("t", "toggle_all", "All/queue", show=False,
            tooltip="List all questions, or only your queue (with an assignment plan)"),
    Binding("q", "quit_editor", "Quit", tooltip="Quit (asks when there are unsaved changes)"),
]
