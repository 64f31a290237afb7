"""The model side of a comparison: prompt hashes, the answer cache of a run, provenance, and readers of other
tools' logs (inspect_ai ``.eval``/``.json``, lm-evaluation-harness ``--log_samples`` JSONL). Knows no benchmark."""
