"""Statistics, figures and the humans-vs-models comparison pipeline shared by every benchmark."""
