"""Reading lm-evaluation-harness ``--log_samples`` JSONL files (``samples_<task>_<date>.jsonl``) as model answers.

One line per document and filter: ``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``, ``filtered_resps``,
``filter``, metric fields. The item id is a field of ``doc`` (``--id-field``; by default the first of ``id``,
``Key``, ``trial_id``, ``item`` the document has), else ``doc_id``. Generation tasks give text
(``filtered_resps[0]``; several repeats become epochs 1..n); multiple-choice (log-likelihood) tasks give
``[log-likelihood, is_greedy]`` per option, read as the index of the most likely option. A file holding several
filters needs ``--filter`` (which one); a document twice under the same filter is refused, naming both lines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import iter_json_lines
from benchlab.data.models.imported import ImportedAnswer, ImportedLog

ID_FIELDS = ("id", "Key", "trial_id", "item")


def _id_of(obj: dict[str, Any], id_field: str | None, path: Path, line: int) -> str:
    doc = obj.get("doc")
    if id_field is not None:
        if not isinstance(doc, dict) or id_field not in doc:
            raise BenchlabError(f"the document has no field {id_field!r} (--id-field)", path, line)
        return str(doc[id_field])
    if isinstance(doc, dict):
        for name in ID_FIELDS:
            if name in doc:
                return str(doc[name])
    if "doc_id" not in obj:
        raise BenchlabError("not an lm-eval samples line (no doc_id)", path, line)
    return str(obj["doc_id"])


def _responses(obj: dict[str, Any], path: Path, line: int) -> list[tuple[str, int | None]]:
    """(text, option index) per repeat."""
    filtered = obj.get("filtered_resps")
    if filtered is None:
        filtered = [r[0] if isinstance(r, list) and r else r for r in obj.get("resps") or []]
    if not isinstance(filtered, list) or not filtered:
        raise BenchlabError("no filtered_resps or resps in this line", path, line)
    if all(isinstance(r, list) and len(r) == 2 and isinstance(r[0], int | float) for r in filtered):
        lls = [float(r[0]) for r in filtered]
        return [("", max(range(len(lls)), key=lls.__getitem__))]
    if all(isinstance(r, list) and r and isinstance(r[0], int | float) for r in filtered):
        lls = [float(r[0]) for r in filtered]
        return [("", max(range(len(lls)), key=lls.__getitem__))]
    texts: list[str] = []
    for r in filtered:
        if isinstance(r, str):
            texts.append(r)
        elif isinstance(r, list) and all(isinstance(x, str) for x in r):
            texts.extend(r)
        else:
            raise BenchlabError(f"cannot read this response: {str(r)[:60]!r}", path, line)
    return [(t, None) for t in texts]


def read_lm_eval_samples(path: str | Path, *, id_field: str | None = None, filter_name: str | None = None
                         ) -> ImportedLog:
    """Every answer of a samples file (one filter)."""
    p = Path(path)
    rows: list[tuple[int, dict[str, Any]]] = list(iter_json_lines(p))
    if not rows:
        raise BenchlabError("the samples file is empty", p)
    filters = sorted({str(obj.get("filter", "none")) for _l, obj in rows})
    if filter_name is None and len(filters) > 1:
        raise BenchlabError(f"the file holds the filters {', '.join(filters)}; choose one with --filter", p)
    chosen = filter_name if filter_name is not None else filters[0]
    if chosen not in filters:
        raise BenchlabError(f"no filter {chosen!r} in this file (it has {', '.join(filters)})", p)
    seen: dict[str, int] = {}
    answers: list[ImportedAnswer] = []
    for line, obj in rows:
        if str(obj.get("filter", "none")) != chosen:
            continue
        item = _id_of(obj, id_field, p, line)
        if item in seen:
            raise BenchlabError(f"document {item!r} appears twice under filter {chosen!r} (first on line "
                                f"{seen[item]})", p, line)
        seen[item] = line
        raw_doc = obj.get("doc")
        doc: dict[str, Any] = raw_doc if isinstance(raw_doc, dict) else {}
        for epoch, (text, index) in enumerate(_responses(obj, p, line), 1):
            answers.append(ImportedAnswer(id=item, epoch=epoch, completion=text, line=line, choice_index=index,
                                          extra={"choices": doc.get("choices")} if index is not None else {}))
    return ImportedLog(kind="lm-eval", answers=answers)
