"""CLI sub-commands, one module per benchmark or job; each registers itself on the groups in groups.py."""
