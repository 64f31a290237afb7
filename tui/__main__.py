"""``python -m benchlab.tui ...``: the ``benchlab`` command without its console script (how the web server starts a
participant's app: ``[sys.executable, "-m", "benchlab.tui", "run", TASK, ..., "--web-session"]``)."""

from benchlab.tui.cli import main

main()
