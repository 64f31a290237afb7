"""SORT as a task on BookSORT data: its declaration, plan, human record (CSV results log) and commands."""
