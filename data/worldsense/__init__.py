"""WorldSense: trial and results records, loaders, and the benchmark's own scoring."""
