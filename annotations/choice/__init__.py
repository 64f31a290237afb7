"""The two-choice task kit for plug-ins: items, plan, task session, commands and comparison from one call."""
