"""SORT in the app and on the command line: trial screen, excerpt view, commands and the screen benchmark."""
