"""Reading the participant-facing texts a lab supplies (moved to :mod:`benchlab.annotations.session_texts`)."""

from benchlab.annotations.session_texts import read_text_file, split_pages

__all__ = ["read_text_file", "split_pages"]
