"""Reading inspect_ai logs (``.eval`` zip or ``.json``) as model answers, fast.

The samples are read as JSON straight from the log (``samples/<id>_epoch_<n>.json`` entries of the ``.eval``
zip, or the ``samples`` list of a ``.json`` log), taking only the id, epoch, input messages and the first
choice's text and first-token log-probabilities, where validating every sample as inspect's pydantic models takes
several seconds per 10,000. In an ``.eval`` log the sample ids are in the entry names, so :func:`sample_ids` lists
them without decompressing anything and ``keep`` skips the samples of other items unread. Entries are read from
the mapped file by their offsets: stored, deflated or zstd (what inspect writes; decompressed with ``zstandard``,
which inspect depends on, so inspect itself, 1.6 s to import, is not loaded), each checked against its CRC-32.
"""

from __future__ import annotations

import json
import mmap
import zipfile
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from benchlab.data.errors import BenchlabError
from benchlab.data.key_lines import json_line
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


def _answer(sample: dict[str, Any], path: Path, where: Callable[[], int | None] = lambda: None) -> ImportedAnswer:
    """One sample's answer; ``where`` finds the sample's line for an error (a ``.json`` log; an ``.eval`` log's
    samples are files of their own, named in the message)."""
    if "id" not in sample:
        raise BenchlabError("an inspect sample without an id", path, where())
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


#: The zip method number of zstd (APPNOTE 4.4.5), what inspect writes ``.eval`` entries with.
ZIP_ZSTD = 93


def _unzstd(data: bytes) -> bytes:
    """All the zstd frames of an entry, decompressed (inspect splits very large entries into several frames)."""
    # deferred: zstandard loads only for zstd-compressed logs
    import zstandard

    out = []
    dctx = zstandard.ZstdDecompressor()
    while data:
        obj = dctx.decompressobj()
        out.append(obj.decompress(data))
        data = obj.unused_data
    return b"".join(out)


class _Entries:
    """An ``.eval`` zip's entries, read from the mapped file by their offsets (``zipfile`` for the directory)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.archive = _open_zip(path)
        self.infos = {i.filename: i for i in self.archive.infolist()}
        try:
            with open(path, "rb") as handle:
                self.data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:  # an empty file cannot be mapped (nor be a zip: _open_zip said so)
            self.archive.close()
            raise BenchlabError(f"cannot read the log ({exc})", path) from exc

    def __enter__(self) -> _Entries:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.data.close()
        self.archive.close()

    def header(self) -> Any:
        head = self.infos.get("header.json") or self.infos.get("_journal/start.json")
        if head is None:
            raise BenchlabError("not an inspect .eval log (no header.json)", self.path)
        return self.json(head)

    def json(self, info: zipfile.ZipInfo) -> Any:
        try:
            return json.loads(self.content(info))
        except json.JSONDecodeError as exc:
            raise BenchlabError(f"the log's {info.filename} is not valid JSON ({exc.msg})", self.path) from exc

    def content(self, info: zipfile.ZipInfo) -> bytes:
        """An entry's bytes: stored, deflate or zstd, CRC-checked (other methods: ``zipfile``'s own reader)."""
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, ZIP_ZSTD):
            try:
                return self.archive.read(info)
            except NotImplementedError as exc:
                raise BenchlabError(f"the log's {info.filename} uses a compression this reader does not know "
                                    f"({info.compress_type})", self.path) from exc
        data, at = self.data, info.header_offset
        start = (at + 30 + int.from_bytes(data[at + 26:at + 28], "little")
                 + int.from_bytes(data[at + 28:at + 30], "little"))
        raw = data[start:start + info.compress_size]
        try:
            if info.compress_type == zipfile.ZIP_DEFLATED:
                raw = zlib.decompress(raw, -15)
            elif info.compress_type == ZIP_ZSTD:
                raw = _unzstd(raw)
        except Exception as exc:  # deliberately broad: zlib's and zstandard's errors alike mean a damaged entry
            raise BenchlabError(f"the log's {info.filename} cannot be decompressed ({exc})", self.path) from exc
        if zlib.crc32(raw) != info.CRC:
            raise BenchlabError(f"the log's {info.filename} is damaged (CRC-32 does not match)", self.path)
        return raw


def _id_of(name: str) -> str | None:
    """The sample id of a ``samples/<id>_epoch_<n>.json`` entry (``None`` for other entries)."""
    if not (name.startswith("samples/") and name.endswith(".json")):
        return None
    stem = name[len("samples/"):-len(".json")]
    sample, sep, _epoch = stem.rpartition("_epoch_")
    return sample if sep else stem


def sample_ids(path: str | Path) -> tuple[set[str], str] | None:
    """The sample ids of an ``.eval`` log, from its entry names (no sample decompressed), and the task its header
    names; ``None`` for other logs."""
    p = Path(path)
    if p.suffix != ".eval":
        return None
    with _Entries(p) as entries:
        task = _header_fields(entries.header())["task"]
        return {i for i in map(_id_of, entries.infos) if i is not None}, task


def _sample_line(p: Path, index: int) -> int | None:
    """The line where a ``.json`` log's sample ``index`` starts (read again only for an error)."""
    return json_line(p.read_text(encoding="utf-8"), ("samples", index))


def _read_json_log(p: Path) -> ImportedLog:
    try:
        data = json.loads(p.read_bytes())
    except json.JSONDecodeError as exc:
        raise BenchlabError(f"not an inspect .json log ({exc.msg})", p, exc.lineno) from exc
    except OSError as exc:
        raise BenchlabError(f"cannot read the log ({exc.strerror or exc})", p) from exc
    if not isinstance(data, dict) or "eval" not in data:
        raise BenchlabError("not an inspect .json log (no 'eval' header)", p)
    answers = [_answer(s, p, partial(_sample_line, p, i)) for i, s in enumerate(data.get("samples") or [])]
    return ImportedLog(kind="inspect", answers=answers, **_header_fields(data))


def read_inspect_log(path: str | Path, keep: Callable[[str], bool] | None = None) -> ImportedLog:
    """The samples of an inspect log (``.eval`` or ``.json``); of an ``.eval`` log only those whose id ``keep``
    accepts are read (the others' ids are in ``other_ids``)."""
    p = Path(path)
    if p.suffix == ".json":
        return _read_json_log(p)
    with _Entries(p) as entries:
        header = entries.header()
        wanted, other = [], set()
        for name, info in entries.infos.items():
            sample = _id_of(name)
            if sample is None:
                continue
            if keep is None or keep(sample):
                wanted.append(info)
            else:
                other.add(sample)
        answers = [_answer(entries.json(info), p) for info in wanted]
    if not answers and not other:
        raise BenchlabError("the inspect log holds no samples", p)
    return ImportedLog(kind="inspect", answers=answers, other_ids=frozenset(other), **_header_fields(header))
