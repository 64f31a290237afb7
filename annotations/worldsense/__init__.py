"""WorldSense sessions: the plan (whole tuples, balanced cells) and the human results record."""
