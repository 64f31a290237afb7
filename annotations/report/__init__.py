"""benchlab report: the study report (build, render, checklist, flow, paradata)."""
