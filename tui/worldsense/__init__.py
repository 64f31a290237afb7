"""WorldSense in the app and on the command line: its trial screen and commands."""
