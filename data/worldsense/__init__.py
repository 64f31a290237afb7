"""WorldSense: trial and results records, loaders, and the benchmark's own scoring.

Public API (names kept stable for the app and the session engine):

- ``records.Trial`` (one test trial; ``goldresp`` de-obfuscated, hidden from repr; ``.prompt()`` is the
  participant-safe view ``records.TrialPrompt``; ``.is_correct(resp)``) and ``records.ResultLine``
  (``Key: int`` exact 64-bit, ``resp: str`` strictly, extra fields kept in ``.extras``).
- ``loader.load_trials(path) -> list[Trial]`` (folder or file, .jsonl or .jsonl.bz2), ``loader.load_testset(dir)
  -> DataFrame`` (like the original, Key int64), ``loader.find_trials_file``, ``loader.tuples_of``.
- ``results.results_filename(prompting, modelname)``, ``results.append_result(path, key, resp, extra)`` (one
  fsynced line per answer), ``results.write_results``, ``results.read_results``, ``results.find_results(dir)``,
  ``results.answered_keys(path)`` (for resume without duplicates).
- ``rules``: the answer table (``is_correct``, ``ANSWER_CLASS``, ``BIAS_SIGN``, ``GOLD_WEIGHT``, orders).
- ``scoring.score_worldsense(trials, results) -> WorldSenseTables`` (the original's three tables + warnings;
  ``.overall/.accuracy/.bias`` numeric frames, ``.tuples`` per-tuple scores, ``.tables()`` formatted);
  ``scoring.score_text(trials, results, fmt)`` (the rendered tables and warnings; the table format without pandas,
  ``plain_tables``);
  ``scoring.score_testset_dir(dir)``; ``scoring.stats_by_group(tuples, by, value)`` (the rebalanced statistics,
  from ``score_tables``; tuple scores in ``tuple_scores``).
- ``training.load_training_set(path)`` (``dialog_history``/``target_message`` records).
- ``fetch.fetch_worldsense(dest, base_url=...)`` (verified, resumable download); ``subset.make_subset`` (whole-tuple
  samples). Internals for speed: ``columns`` (columnar readers + content cache), ``compact``, ``cellstats``.
"""
