"""Reusable Textual widgets, one per module, each with its .tcss beside it."""
