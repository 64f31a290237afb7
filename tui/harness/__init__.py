"""Speed and timing harnesses of the app layer (``bench serve``, ``timing-check``); not product code."""
