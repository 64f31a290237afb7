"""WorldSense as a task: its declaration, plan (whole tuples, balanced cells), human record and commands."""
