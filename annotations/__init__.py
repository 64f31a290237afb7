"""What people produce: session plans, response logs, context annotations and their edits.

Builds on ``benchlab.data``; never imports Textual, so records can be read and written from a notebook.
"""
