"""Reading inspect_ai logs (``.eval`` zip or ``.json``) as model answers, fast.

The samples are read as JSON straight from the log (``samples/<id>_epoch_<n>.json`` entries of the ``.eval``
zip, or the ``samples`` list of a ``.json`` log), taking only the id, epoch, input messages and the first
choice's text and first-token log-probabilities: a 10,000-sample log reads in about a second, where validating
every sample as inspect's pydantic models takes several. Files inspect writes with zstd compression are read with
inspect's own zip support (imported only then).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from benchlab.data.errors import BenchlabError
from benchlab.data.models.imported import ImportedAnswer, ImportedLog


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content
                       if isinstance(part, dict) and part.get("type") == "text")
    return ""


def _messages(value: Any) -> tuple[tuple[str, str], ...] | None:
    if isinstance(value, str):
        return (("user", value),)
    if isinstance(value, list):
        return tuple((str(m.get("role", "user")), _text(m.get("content"))) for m in value if isinstance(m, dict))
    return None


def _answer(sample: dict[str, Any], path: Path) -> ImportedAnswer:
    if "id" not in sample:
        raise BenchlabError("an inspect sample without an id", path)
    output = sample.get("output") or {}
    choices = output.get("choices") or []
    completion, top = "", None
    if choices:
        first = choices[0]
        completion = _text((first.get("message") or {}).get("content"))
        content = (first.get("logprobs") or {}).get("content") or []
        if content:
            tok = content[0]
            top = {str(tok.get("token")): float(tok.get("logprob"))}
            for cand in tok.get("top_logprobs") or []:
                top.setdefault(str(cand.get("token")), float(cand.get("logprob")))
    return ImportedAnswer(id=str(sample["id"]), epoch=int(sample.get("epoch") or 1), completion=completion,
                          top_logprobs=top, messages=_messages(sample.get("input")),
                          extra={"error": sample["error"]} if sample.get("error") else {})


def _header_fields(header: dict[str, Any]) -> dict[str, Any]:
    spec = header.get("eval") or {}
    return {"task": str(spec.get("task", "")), "model": str(spec.get("model", "")),
            "base_url": str(spec.get("model_base_url") or ""),
            "generation": {k: v for k, v in (spec.get("model_generate_config") or {}).items() if v is not None}}


def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise BenchlabError("not an inspect .eval log (not a zip file)", path) from exc
    except OSError as exc:
        raise BenchlabError(f"cannot read the log ({exc.strerror or exc})", path) from exc


def _read_member(archive: zipfile.ZipFile, name: str, path: Path) -> Any:
    try:
        data = archive.read(name)
    except NotImplementedError:
        # deferred: inspect's zstd support for zipfile, needed only for logs written with zstd compression
        import inspect_ai._util.zipfile  # noqa: F401

        data = archive.read(name)
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise BenchlabError(f"the log's {name} is not valid JSON ({exc.msg})", path) from exc


def read_inspect_log(path: str | Path) -> ImportedLog:
    """Every sample of an inspect log (``.eval`` or ``.json``)."""
    p = Path(path)
    if p.suffix == ".json":
        try:
            data = json.loads(p.read_bytes())
        except json.JSONDecodeError as exc:
            raise BenchlabError(f"not an inspect .json log ({exc.msg})", p, exc.lineno) from exc
        except OSError as exc:
            raise BenchlabError(f"cannot read the log ({exc.strerror or exc})", p) from exc
        if not isinstance(data, dict) or "eval" not in data:
            raise BenchlabError("not an inspect .json log (no 'eval' header)", p)
        answers = [_answer(s, p) for s in data.get("samples") or []]
        return ImportedLog(kind="inspect", answers=answers, **_header_fields(data))
    with _open_zip(p) as archive:
        names = archive.namelist()
        if "header.json" in names:
            header = _read_member(archive, "header.json", p)
        elif "_journal/start.json" in names:
            header = _read_member(archive, "_journal/start.json", p)
        else:
            raise BenchlabError("not an inspect .eval log (no header.json)", p)
        answers = [_answer(_read_member(archive, n, p), p) for n in names
                   if n.startswith("samples/") and n.endswith(".json")]
    if not answers:
        raise BenchlabError("the inspect log holds no samples", p)
    return ImportedLog(kind="inspect", answers=answers, **_header_fields(header))
