"""The generic choice-task kit of plug-ins: items files, results files, scoring and the comparison."""
