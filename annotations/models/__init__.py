"""Models on the items people saw: ``benchlab models run|import|export`` through inspect_ai, and the same-items
check of ``score``/``compare``. Reads each benchmark through :class:`~benchlab.annotations.task.PromptsModels`."""
