"""SORT in the app: its trial screen (excerpt, delay, question), the excerpt view and the screen benchmark."""
