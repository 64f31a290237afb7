"""fastbook-benchmark curation: context edits, undo/redo, the change log, the editor's model and commands."""
