"""The benchlab Textual app and the ``benchlab`` command line (the only layer that imports Textual)."""
