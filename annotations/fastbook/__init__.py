"""fastbook-benchmark curation: context edits, undo/redo, the change log and the editor's model."""
