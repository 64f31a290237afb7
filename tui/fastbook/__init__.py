"""fastbook curation in the app and on the command line: the editor, its widgets and commands."""
