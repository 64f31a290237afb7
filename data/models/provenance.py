"""What a model run (or an imported log) records about itself, beside its results: ``<out>/models/*.run.json``.

Model, base URL, template, sampling settings, software versions, when, and for every item the SHA-256 of the
prompt sent and of the stimulus a person sees, so ``score``/``compare`` can prove both sides answered the same
items and the Results screen can list the run with its provenance.
"""

from __future__ import annotations

import json
import platform
import re
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import describe_validation_error
from benchlab.data.key_lines import json_line
from benchlab.data.models.run_folder import RUN_SUFFIX
from benchlab.data.version import __version__


class ItemHashes(BaseModel):
    """One item of a run: its id and the hashes of what the model was sent and what a person sees."""

    model_config = ConfigDict(extra="allow")

    id: str
    prompt_sha256: str
    stimulus_sha256: str = ""


class RunProvenance(BaseModel):
    """One model run's provenance file."""

    model_config = ConfigDict(extra="allow")

    task: str
    model: str = Field(description="provider/name, as given to inspect_ai")
    model_name: str = Field(description="the name the results files carry")
    base_url: str = ""
    template: str = ""
    source: str = Field("run", description="run, or the imported log's kind: inspect, lm-eval")
    source_file: str = ""
    generation: dict[str, Any] = Field(default_factory=dict)
    versions: dict[str, str] = Field(default_factory=dict)
    created: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    items: list[ItemHashes] = Field(default_factory=list)
    results: list[str] = Field(default_factory=list)
    logs: list[str] = Field(default_factory=list)
    requests: int = 0
    cached: int = 0
    invalid_answers: int = 0
    correct: int = 0
    plans: list[str] = Field(default_factory=list, description="the session plans the items came from")
    epochs: str = ""

    def save(self, folder: Path) -> Path:
        path = folder / run_filename(self.task, self.model_name, self.template)
        atomic_write_text(path, self.model_dump_json(indent=2) + "\n")
        return path


def run_filename(task: str, model_name: str, template: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._+-]+", "_", f"{task}__{model_name}__{template or 'default'}")
    return safe + RUN_SUFFIX


def software_versions(*packages: str) -> dict[str, str]:
    """Versions of benchlab, Python and the named packages (those installed)."""
    out = {"benchlab": __version__, "python": platform.python_version()}
    for name in packages:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def read_runs(folder: Path) -> list[tuple[Path, RunProvenance]]:
    """Every run file under ``folder`` (searched recursively), oldest first; a broken file is an error naming it."""
    if not folder.exists():
        return []
    out: list[tuple[Path, RunProvenance]] = []
    for path in sorted(folder.rglob("*" + RUN_SUFFIX)):
        try:
            out.append((path, RunProvenance.model_validate(json.loads(path.read_text(encoding="utf-8")))))
        except json.JSONDecodeError as exc:
            raise BenchlabError(f"not a model run file ({exc.msg})", path, exc.lineno) from exc
        except ValidationError as exc:
            loc = exc.errors()[0]["loc"] if exc.errors() else ()
            raise BenchlabError(describe_validation_error(exc), path,
                                json_line(path.read_text(encoding="utf-8"), loc)) from exc
    out.sort(key=lambda pr: pr[1].created)
    return out
