"""BookSORT / SORT: records, loaders, the trial generator and SORT scoring."""
