"""fastbook curation in the app: the context editor, its widgets and the ``curate fastbook`` command."""
