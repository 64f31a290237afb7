"""CLI groups and the commands generated from task declarations (``run``, ``score``, ``compare``, ``bench`` ...)."""
