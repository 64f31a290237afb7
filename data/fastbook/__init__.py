"""fastbook-benchmark: the benchmark file, chapters and chunks, retrieval scoring and the audit."""
