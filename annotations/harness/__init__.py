"""Fault harnesses (``benchlab bench faults``): kill real sessions and check what resuming keeps."""
