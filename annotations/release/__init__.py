"""Release bundles: a study's data made publishable (bundle), its tables rebuilt from the bundle alone (tables)."""
