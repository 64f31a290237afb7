"""Pick a file or folder for a path field (the data set, an output folder, a consent text) by browsing, instead of
typing a path from memory; the chosen path goes back into the field, where it can still be edited."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DirectoryTree, Static
from textual.widgets.directory_tree import DirEntry


class PathPicker(ModalScreen[Path | None]):
    """A directory tree rooted at ``start`` (or its nearest existing parent); Enter on a file picks it, "Use this
    folder" picks the highlighted folder; Escape cancels. ``folders_only`` hides files (an output folder)."""

    DEFAULT_CSS = """
    PathPicker {
        align: center middle;
        background: $background 60%;
    }
    PathPicker #picker {
        width: 90%;
        max-width: 110;
        height: 80%;
        padding: 1 2;
        border: thick $primary;
        background: $surface;
    }
    PathPicker #picker-title {
        text-style: bold;
        padding: 0 0 1 0;
    }
    PathPicker DirectoryTree {
        height: 1fr;
    }
    PathPicker #picker-buttons {
        height: auto;
        padding: 1 0 0 0;
    }
    PathPicker Button {
        margin: 0 2 0 0;
    }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("backspace", "up", "Parent folder")]

    def __init__(self, title: str, start: Path, *, folders_only: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.root = _existing_folder(start)
        self.folders_only = folders_only
        self._highlighted: Path = self.root

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(f"{self.title_text}: Enter opens a folder or picks a file; Backspace goes up",
                         id="picker-title", markup=False)
            yield self._tree()
            with Horizontal(id="picker-buttons"):
                yield Button("Use this folder", id="use-folder", variant="primary")
                yield Button("Cancel (Esc)", id="cancel")

    def _tree(self) -> DirectoryTree:
        return _FoldersTree(self.root, id="tree") if self.folders_only else DirectoryTree(self.root, id="tree")

    def on_mount(self) -> None:
        self.query_one("#tree", DirectoryTree).focus()

    def on_tree_node_highlighted(self, event: DirectoryTree.NodeHighlighted[DirEntry]) -> None:
        if isinstance(event.node.data, DirEntry):
            self._highlighted = event.node.data.path

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(event.path)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "use-folder":
            chosen = self._highlighted if self._highlighted.is_dir() else self._highlighted.parent
            self.dismiss(chosen)
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    async def action_up(self) -> None:
        parent = self.root.parent
        if parent != self.root:
            self.root = parent
            tree = self.query_one("#tree", DirectoryTree)
            tree.path = parent


class _FoldersTree(DirectoryTree):
    """Folders only (choosing an output folder)."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [p for p in paths if p.is_dir()]


def _existing_folder(start: Path) -> Path:
    """``start`` if it is a folder, its folder if a file, else the nearest existing parent (or the cwd)."""
    path = start.expanduser()
    if path.is_file():
        return path.parent.resolve()
    while not path.is_dir():
        if path.parent == path:
            return Path.cwd()
        path = path.parent
    return path.resolve()
