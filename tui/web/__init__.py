"""The app's side of a participant session in a web browser: the web driver and what the page tells the app."""
