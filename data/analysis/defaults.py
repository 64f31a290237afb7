"""Defaults shared by every comparison front end (CLI, Results screen, library), so that the same data and seed
give the same CIs and p-values wherever they are computed. Kept free of imports so ``benchlab --help`` stays
quick."""

DEFAULT_BOOT = 5000  # bootstrap resamples (and Monte Carlo sign flips)
DEFAULT_SEED = 20240601
