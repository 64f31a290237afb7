"""SORT sessions on BookSORT data: the plan, the trial record and the CSV results log."""
