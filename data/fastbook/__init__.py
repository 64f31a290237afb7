"""fastbook-benchmark: the benchmark file, chapters and chunks, retrieval scoring and the audit.

Public API (names are stable; the curation editor builds on them):

- ``benchmark``: ``Benchmark``, ``Question``, ``Component``, ``QuestionContext``, ``QuestionId`` (chapter,
  question_number), ``Flag`` (``"true"``/``"false"``), ``load_benchmark(path)``, ``loads_benchmark(text, path)``,
  ``save_benchmark(benchmark, path, backup=True)`` (atomic, ``.bak`` of the previous file, unedited questions
  written byte for byte), ``file_fingerprint(path)`` vs ``Benchmark.source_fingerprint`` (changed on disk?),
  ``Benchmark.dumps()``, ``Benchmark.is_edited(q)``, ``Benchmark.edited_ids()``, ``strip_outer_quotes``.
- ``chapters``: ``Chapter`` (``text``, ``chunks``, ``halving_cut``, ``line_of``), ``Chunk`` (``start``, ``end``,
  ``text``), ``load_chapter(folder, n)``, ``load_chapters(folder, numbers)``, ``notebook_to_text(path)``,
  ``chunk_spans(text)``, ``chunking_available()``.
- ``runs``: ``RunLine``, ``Run``, ``read_run(path, benchmark)``, ``write_run(path, run, order)``.
- ``scoring``: ``Scorer(benchmark, chapters?, k=10)``, ``QuestionScore``, ``RunScore``, ``score_run``,
  ``modified_mrr``, ``modified_recall``, ``score_tables``, ``question_table``, ``Normaliser``, ``fix_text``.
- ``audit``: ``ContextStatus`` (``verdict``: found / not found / crosses a chunk, ``reason``, ``spans``,
  ``chunks``, ``suggestion``), ``Reason``, ``Auditor(chapters).check_context(chapter_number, text)``,
  ``check_context(chapter, text)``, ``audit_benchmark(benchmark, chapters)``, ``AuditReport``.
- ``baseline``: ``fts_run(benchmark, chapters, query="keywords"|"question", keywords=...)``, ``read_keywords``,
  ``FtsIndex``.
- ``imports``: ``read_results_table(path, benchmark, column)`` (the notebooks' CSV / published workbook),
  ``read_positional_json``, ``run_from_positional``, ``repair_mac_roman``.
- ``locate``: ``default_benchmark_path()``, ``chapters_dir_for(benchmark_path)``, ``keywords_path_for``,
  ``sample_benchmark_path()``, ``is_sample``.
"""
