"""Online studies: crowd links with platform ids (Prolific, SONA, MTurk), pseudonymous participant ids with a
separate key file, arms and quotas under a lock, completion codes given only for data on disk, attention checks,
time limits, reconciliation against a platform's submissions export, and the experimenter's password.

Nothing here serves web pages: :mod:`benchlab.tui.web.online` mounts the routes that call these functions.
"""
