"""Study files: a lab day written down once (benchmark, data, options, consent and instructions, arms and how
participants are assigned to them), instead of options retyped for every participant.

A study is a folder holding ``study.toml`` (validated here, with ``study.schema.json`` beside it for editors),
the texts it names, and ``assignments.jsonl``: one line per session started, fsynced, with the arm given and the
study file's sha256. Which arm a participant gets follows the study's rule:

- ``balanced``: the arm with the fewest participants so far (ties: the first in the file), so arms stay balanced by
  order of arrival whoever drops out;
- ``latin-square``: arrival *k* gets row *k* of a cyclic Latin square over the arms, and session *s* the row's
  *s*-th arm (within-participant designs: every arm in every position equally often);
- ``participants-file``: a CSV of ``participant,arm`` (optionally ``session``) decided beforehand.

A participant's assignment is looked up again on resume, never redrawn. A study file changed after sessions
started is flagged: the sessions then ran under different texts or options.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from benchlab.annotations.exclusions.rules import declared_rules
from benchlab.annotations.ids import IdError, check_id
from benchlab.annotations.online import places, private
from benchlab.annotations.online.config import OnlineSection, online_template
from benchlab.annotations.options import OptionError, Options, option_infos
from benchlab.annotations.session.opening import open_session, session_options
from benchlab.annotations.session.runner import wall_clock_now
from benchlab.annotations.task import Registry, SessionOptions, Task
from benchlab.data.atomic import append_line, atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.key_lines import toml_line
from benchlab.data.text_io import decode_utf8

STUDY_FILE = "study.toml"
SCHEMA_FILE = "study.schema.json"
ASSIGNMENTS_FILE = "assignments.jsonl"

#: Options a study cannot fix: who, which session and whether to resume are decided when a session starts; the
#: output folder is the study's own; a plan seed is drawn per session (one seed for all would give everyone the
#: same plan).
PER_SESSION = frozenset({"participant", "session", "resume", "simulate", "sim_delay", "out", "seed"})

Rule = Literal["balanced", "latin-square", "participants-file"]


class Arm(BaseModel):
    """One between-participant condition: a name and the options it sets (over the study's shared options)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The arm's name (letters, digits, '.', '-'); recorded with every session.")
    options: dict[str, Any] = Field(default_factory=dict, description="Options of this arm (as in benchlab run).")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        try:
            return check_id(value, "arm name")
        except IdError as exc:
            raise ValueError(str(exc)) from None


class Assignment(BaseModel):
    """How participants are given arms."""

    model_config = ConfigDict(extra="forbid")

    rule: Rule = Field("balanced", description="balanced | latin-square | participants-file")
    participants_file: str | None = Field(None, description="CSV with columns participant,arm[,session] "
                                          "(rule participants-file), relative to the study folder.")


class StudyFile(BaseModel):
    """What ``study.toml`` holds (unknown keys are refused: a typo must not silently use a default)."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(description="The study's name, shown in the launcher and the preview.")
    benchmark: str = Field(description="The registered benchmark to run (a task name, as `benchlab run NAME`"
                           " takes).")
    out: str = Field(".", description="Output folder for every session (its results/ and sessions/), relative to "
                     "the study folder.")
    options: dict[str, Any] = Field(default_factory=dict, description="Options shared by every arm (as in benchlab "
                                    "run: dataset, trials, consent_file, instructions_file, ...).")
    arms: list[Arm] = Field(default_factory=lambda: [Arm(name="all")], min_length=1)
    assignment: Assignment = Field(default_factory=Assignment)
    exclusions: list[dict[str, Any]] = Field(default_factory=list, description="Declared exclusion rules, each "
                                             "{rule = \"rt_floor\", ms = 200, ...} (docs/report.md); checked on "
                                             "load, never on the scored outcome.")
    checklist: dict[str, str] = Field(default_factory=dict, description="The researcher's answers to the reporting "
                                      "checklist items the files cannot answer, by item id (benchlab report lists "
                                      "them).")
    plan: dict[str, Any] = Field(default_factory=dict, description="The plan from benchlab power (participants, "
                                 "ci_width, power, model_score, command), for the report's achieved-vs-planned "
                                 "precision.")
    online: OnlineSection | None = Field(None, description="Online recruitment from one study link (benchlab "
                                         "serve --study); see docs/online.md.")

    @field_validator("arms")
    @classmethod
    def _unique_arms(cls, arms: list[Arm]) -> list[Arm]:
        names = [a.name for a in arms]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"arm {twice[0]!r} is declared twice")
        return arms


@dataclass(frozen=True)
class StudyAssignment:
    """The arm a participant's session runs, and the options it runs with (checked)."""

    participant: str
    session: str
    arm: str
    session_options: SessionOptions
    plan_options: Options
    new: bool  # assigned now (False: looked up again, e.g. on resume)
    simulated: str | None = None


@dataclass
class Study:
    """A loaded, checked study folder."""

    folder: Path
    spec: StudyFile
    task: Task
    sha256: str

    @property
    def path(self) -> Path:
        return self.folder / STUDY_FILE

    @property
    def out(self) -> Path:
        return (self.folder / self.spec.out).resolve()

    @property
    def assignments_path(self) -> Path:
        return self.folder / ASSIGNMENTS_FILE

    # -- assignments ------------------------------------------------------------------------------------------

    def assignments(self) -> list[dict[str, Any]]:
        """Every session started so far, in order (a cut last line, from a crash, is ignored)."""
        path = self.assignments_path
        try:
            lines = decode_utf8(path.read_bytes(), path, strip_bom=False).splitlines()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise BenchlabError(f"cannot read the study's assignments ({exc.strerror or exc})", path) from exc
        records = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                if number == len(lines):
                    break  # cut by a crash while it was written: the session it began did not start
                raise BenchlabError(f"not a JSON line ({exc.msg})", path, number) from exc
            if not isinstance(record, dict) or not {"participant", "session", "arm"} <= record.keys():
                raise BenchlabError("not an assignment record (participant, session, arm)", path, number)
            records.append(record)
        return records

    def changed_since_start(self) -> str | None:
        """A warning when sessions started under another version of the study file."""
        older = [r for r in self.assignments() if r.get("study_sha256") not in (None, self.sha256)]
        if not older:
            return None
        return (f"{self.path}: the study file changed after sessions started ({len(older)} session"
                f"{'s' if len(older) != 1 else ''} ran under an earlier version); the assignments log keeps "
                "each session's version")

    def arm_for(self, participant: str, session: str) -> tuple[str, bool]:
        """The arm of this participant's session: the recorded one, else by the study's rule (not yet recorded)."""
        records = self.assignments()
        for record in records:
            if record["participant"] == participant and str(record["session"]) == session:
                return str(record["arm"]), False
        names = [a.name for a in self.spec.arms]
        rule = self.spec.assignment.rule
        if rule == "participants-file":
            return self._listed_arm(participant, session), True
        records = [r for r in records if not r.get("simulated")]  # a pilot takes no one's place in the design
        # Only places held count (consented or opening now, not declined, not abandoned), plus arms just chosen
        # for seats whose session is still opening (see annotations/online/places.py).
        holding = places.counted(self) | {participant}
        records = [r for r in records if r["participant"] in holding] + places.pending_reservations(self)
        arrivals = list(dict.fromkeys(r["participant"] for r in records))
        if rule == "latin-square":
            row = arrivals.index(participant) if participant in arrivals else len(arrivals)
            position = _session_position(session)
            return names[(row + position) % len(names)], True
        counts = {name: 0 for name in names}
        first_arm: dict[str, str] = {}
        for record in records:
            first_arm.setdefault(record["participant"], str(record["arm"]))
        if participant in first_arm and first_arm[participant] in counts:
            return first_arm[participant], True  # a between-participant arm: later sessions stay in it
        for arm in first_arm.values():
            if arm in counts:
                counts[arm] += 1
        open_names = [n for n in names if places.full(self, n) is None] or names
        return min(open_names, key=lambda n: (counts[n], names.index(n))), True

    def _listed_arm(self, participant: str, session: str) -> str:
        listed = self.participants_list()
        for who, sess, arm in listed:
            if who == participant and sess in (None, session):
                return arm
        file = self.folder / (self.spec.assignment.participants_file or "")
        raise BenchlabError(f"participant {participant!r} (session {session}) is not in the participants file", file)

    def participants_list(self) -> list[tuple[str, str | None, str]]:
        """(participant, session or None, arm) rows of the participants file, checked."""
        name = self.spec.assignment.participants_file
        if not name:
            raise BenchlabError("assignment rule participants-file needs participants_file", self.path)
        path = self.folder / name
        try:
            text = decode_utf8(path.read_bytes(), path)
        except OSError as exc:
            raise BenchlabError(f"cannot read the participants file ({exc.strerror or exc})", path) from exc
        if "\x00" in text:
            line = text.count("\n", 0, text.index("\x00")) + 1
            raise BenchlabError("a NUL byte (not a text CSV file?)", path, line)
        reader = csv.DictReader(io.StringIO(text), strict=True)
        try:
            return self._participant_rows(reader, path)
        except csv.Error as exc:  # a field over csv's limit (128 KiB), an unclosed quote ...
            raise BenchlabError(f"malformed CSV ({exc})", path, reader.line_num + 1) from None

    def _participant_rows(self, reader: csv.DictReader[str], path: Path) -> list[tuple[str, str | None, str]]:
        columns = set(reader.fieldnames or [])
        if not {"participant", "arm"} <= columns:
            raise BenchlabError("the participants file needs the columns participant and arm", path, 1)
        arms = {a.name for a in self.spec.arms}
        rows: list[tuple[str, str | None, str]] = []
        seen: dict[tuple[str, str | None], int] = {}
        first: dict[str, tuple[int, str | None, str]] = {}
        for row in reader:
            line = reader.line_num
            who, arm = (row.get("participant") or "").strip(), (row.get("arm") or "").strip()
            sess = (row.get("session") or "").strip() or None
            if not who:
                raise BenchlabError("a row without a participant id", path, line)
            try:
                check_id(who, "participant")
            except IdError as exc:
                raise BenchlabError(str(exc), path, line) from None
            if arm not in arms:
                raise BenchlabError(f"arm {arm!r} is not an arm of the study ({', '.join(sorted(arms))})", path, line)
            if (who, sess) in seen:
                raise BenchlabError(f"participant {who!r} is listed twice (also on line {seen[(who, sess)]})",
                                    path, line)
            earlier = first.get(who)
            if earlier is not None and (earlier[1] is None or sess is None):
                # one row without a session means "every session": another row for the person contradicts it
                raise BenchlabError(f"participant {who!r} is listed twice (also on line {earlier[0]}"
                                    f"{', with arm ' + repr(earlier[2]) if earlier[2] != arm else ''})", path, line)
            first.setdefault(who, (line, sess, arm))
            seen[(who, sess)] = line
            rows.append((who, sess, arm))
        return rows

    def assign(self, participant: str, session: str = "1", *, resume: bool = False, simulate: str | None = None,
               sim_delay: float = 0.0) -> StudyAssignment:
        """The checked options of this participant's session (not recorded yet: see :meth:`record`)."""
        check_id(participant, "participant")
        check_id(session, "session")
        with private.locked(self.folder):  # two seats starting in the same second never read the same counts
            arm, new = self.arm_for(participant, session)
            if new and self.spec.assignment.rule != "participants-file" and not simulate:
                places.reserve(self, participant, session, arm)
        values = self.arm_values(arm)
        values.update(participant=participant, session=session, resume=resume, simulate=simulate,
                      sim_delay=sim_delay)
        try:
            sess, plan = session_options(self.task, values)
        except OptionError as exc:
            raise BenchlabError(f"arm {arm}: {exc}", self.path, _line_of(self.path, exc.field, arm)) from None
        return StudyAssignment(participant, session, arm, sess, plan, new, simulate)

    def arm_values(self, arm: str) -> dict[str, Any]:
        """The study's options with the arm's over them, paths made relative to the study folder."""
        chosen = next((a for a in self.spec.arms if a.name == arm), None)
        if chosen is None:  # recorded under an arm the study file no longer declares (removed or renamed)
            line = next((n for n, r in enumerate(self.assignments(), start=1) if str(r.get("arm")) == arm), None)
            raise BenchlabError(f"a session was assigned arm {arm!r}, which the study file no longer declares "
                                f"(arms: {', '.join(a.name for a in self.spec.arms)}); restore the arm or start a "
                                "new session", self.assignments_path, line)
        values = {**self.spec.options, **chosen.options}
        paths = {i.name for model in (self.task.session_options, self.task.plan_options)
                 for i in option_infos(model) if i.kind == "path"}
        for name in paths & values.keys():
            if isinstance(values[name], str) and values[name] and not Path(values[name]).expanduser().is_absolute():
                values[name] = str(self.folder / values[name])
        values["out"] = str(self.out)
        return values

    def dry_run(self, arm: str) -> tuple[int, int]:
        """Plan a throwaway session of ``arm`` in a temporary folder, so an arm that does not fit its data set (a
        configuration it lacks, more trials than it holds) is caught before the first participant, not during
        their session. Returns the (practice, scored) trial counts."""
        with tempfile.TemporaryDirectory(prefix="benchlab-study-check-") as tmp:
            values = {**self.arm_values(arm), "participant": "study-check", "out": tmp}
            try:
                session, plan = session_options(self.task, values)
                runner = open_session(self.task, session, plan)
            except OptionError as exc:
                raise BenchlabError(f"arm {arm}: {exc}", self.path, _line_of(self.path, exc.field, arm)) from None
            except BenchlabError as exc:
                raise BenchlabError(f"arm {arm} does not fit its data: {exc}", self.path,
                                    _line_of(self.path, "name", arm)) from None
            try:
                return runner.n_practice, runner.n_main
            finally:
                runner.discard()

    def record(self, assignment: StudyAssignment, plan_file: Path | None = None, *, source: str | None = None,
               person: str | None = None) -> None:
        """Append the session's assignment (fsynced) with the study file's hash, once per session (``source``:
        ``"web"`` for a join through the study link; ``person``: the pseudonymous person key the ``duplicate``
        exclusion rule reads, see :func:`benchlab.annotations.online.private.person_key`)."""
        if not assignment.new:
            return
        line = {"participant": assignment.participant, "session": assignment.session, "arm": assignment.arm,
                "benchmark": self.spec.benchmark, "study_sha256": self.sha256, "timestamp": wall_clock_now(),
                "plan": str(plan_file) if plan_file else None, "simulated": assignment.simulated}
        if source is not None:
            line["source"] = source
        if person is not None:
            line["person"] = person
        with private.locked(self.folder):
            append_line(self.assignments_path, json.dumps(line, ensure_ascii=False))


def _session_position(session: str) -> int:
    """0 for session "1", 1 for "2", ... (a session id that is not a number counts as the first)."""
    return int(session) - 1 if session.isdigit() and int(session) > 0 else 0


def _line_of(path: Path, key: str, arm: str | None = None) -> int | None:
    """The line of ``path`` that sets ``key`` (pydantic's errors carry no line): within ``arm``'s table when it
    sets it there, else the first."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=|[{{,]\s*{re.escape(key)}\s*=")
    found = [n for n, line in enumerate(lines, start=1) if pattern.search(line)]
    if arm is not None:
        named = re.compile(rf"^\s*name\s*=\s*[\"']{re.escape(arm)}[\"']")
        start = next((n for n, line in enumerate(lines, start=1) if named.search(line)), None)
        following = [n for n in found if start is not None and n >= start]
        table_end = next((n for n, line in enumerate(lines, start=1) if start is not None and n > start
                          and line.lstrip().startswith("[")), len(lines) + 1)
        inside = [n for n in following if n < table_end]
        if inside:
            return inside[0]
    return found[0] if found else None


def load_study(folder: str | Path, tasks: Registry) -> Study:
    """Read and check a study folder: TOML syntax, the model, the benchmark, every arm's options."""
    root = Path(folder).expanduser()
    path = root / STUDY_FILE if root.is_dir() or not root.suffix else root
    root = path.parent
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise BenchlabError(f"no study file here (make one with: benchlab study init {root})", path) from exc
    except OSError as exc:
        raise BenchlabError(f"cannot read the study file ({exc.strerror or exc})", path) from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise BenchlabError(f"not UTF-8 text ({exc.reason})", path, line) from exc
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise BenchlabError(f"not valid TOML ({message})", path, int(found.group(1)) if found else None) from exc
    try:
        spec = StudyFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        key = next((str(p) for p in reversed(error["loc"]) if isinstance(p, str)), "")
        problem = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        at = toml_line(raw.decode("utf-8"), error["loc"], error["msg"]) or (_line_of(path, key) if key else None)
        raise BenchlabError(f"{where}: {problem}", path, at) from None
    task = tasks.tasks.get(spec.benchmark)
    if task is None:
        raise BenchlabError(f"benchmark {spec.benchmark!r} is not one of {', '.join(tasks.tasks)}", path,
                            _line_of(path, "benchmark"))
    study = Study(root, spec, task, hashlib.sha256(raw).hexdigest())
    known = set(task.session_options.model_fields) | set(task.plan_options.model_fields)
    for arm in spec.arms:
        for name in {**spec.options, **arm.options}:
            if name in PER_SESSION:
                raise BenchlabError(f"{name} is chosen when a session starts, not in the study file", path,
                                    _line_of(path, name, arm.name))
            if name not in known:
                raise BenchlabError(f"{name} is not an option of {task.name} (known: {', '.join(sorted(known))})",
                                    path, _line_of(path, name, arm.name))
        try:
            session_options(task, {**study.arm_values(arm.name), "participant": "check"})
        except OptionError as exc:
            raise BenchlabError(f"arm {arm.name}: {exc}", path, _line_of(path, exc.field, arm.name)) from None
    if spec.assignment.rule == "participants-file":
        study.participants_list()
    declared_rules(spec.exclusions, path)  # an unknown rule, or one on the scored outcome: file and line
    return study


def study_schema(task: Task | None = None) -> dict[str, Any]:
    """JSON Schema of ``study.toml`` (for editors such as VS Code's Even Better TOML / taplo); with ``task``, the
    options tables list that benchmark's options and refuse others."""
    schema = StudyFile.model_json_schema()
    if task is not None:
        props: dict[str, Any] = {}
        for model in (task.session_options, task.plan_options):
            for name, prop in model.model_json_schema().get("properties", {}).items():
                if name not in PER_SESSION:
                    props[name] = prop
        options = {"type": "object", "properties": props, "additionalProperties": False}
        schema["properties"]["options"] = {**options, "description": schema["properties"]["options"]["description"]}
        schema["$defs"]["Arm"]["properties"]["options"] = options
    return schema


def study_template(task: Task) -> str:
    """A commented ``study.toml`` for ``task``: every option it could set, commented out with its default."""
    lines = [
        f"#:schema ./{SCHEMA_FILE}",
        "# A benchlab study: run a participant with",
        "#   benchlab run --study THIS_FOLDER --participant P01",
        "# or the launcher's Open study. Paths are relative to this folder.",
        "",
        f'title = "{task.title} study"',
        f'benchmark = "{task.name}"',
        'out = "."                  # sessions write results/ and sessions/ here',
        "",
        "[options]                  # shared by every arm; any option of `benchlab run "
        f"{task.name} --help`",
        '# consent_file = "consent.md"',
        '# instructions_file = "instructions.md"',
    ]
    for model in (task.session_options, task.plan_options):
        for info in option_infos(model):
            if info.name in PER_SESSION or info.name in ("consent_file", "instructions_file") or not info.form:
                continue
            lines.append(f"# {info.name} = {_toml_value(info.default)}    # {info.label}")
    first_choice = next((i for i in option_infos(task.plan_options) if i.kind == "choice" and i.choices), None)
    lines += ["", "# Arms: between-participant conditions, each with its own options over the shared ones."]
    if first_choice is not None and len(first_choice.choices) >= 2:
        for choice in first_choice.choices[:2]:
            lines += ["[[arms]]", f'name = "{choice}"', f'options = {{ {first_choice.name} = "{choice}" }}', ""]
    else:
        lines += ["[[arms]]", 'name = "all"', "options = {}", ""]
    lines += [
        "[assignment]",
        '# balanced: the arm with the fewest participants so far; latin-square: arrival k gets row k of a',
        '# Latin square over the arms, session s its s-th arm; participants-file: a CSV participant,arm[,session]',
        'rule = "balanced"',
        '# participants_file = "participants.csv"',
        "",
        "# Exclusions, declared before the data (benchlab report, compare, export apply them; docs/report.md):",
        "# [[exclusions]]",
        '# rule = "rt_floor"        # also rt_ceiling, practice_accuracy, attention_checks, incomplete, ...',
        "# ms = 200",
        "# [plan]                   # from benchlab power: participants, ci_width, power, model_score, command",
        "# [checklist]              # answers to the reporting checklist items benchlab report cannot fill",
        '# "1.9" = "Approved by ..."',
        "",
    ]
    return "\n".join(lines)


def _toml_value(default: Any) -> str:
    """A default as TOML (``...`` where there is none: uncommenting it without a value is a clear TOML error)."""
    if default is None:
        return "..."
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, Path):
        return json.dumps(str(default))
    if isinstance(default, (list, tuple)):
        return json.dumps(list(default))
    return json.dumps(default)


def init_study(folder: str | Path, task: Task, *, online: bool = False) -> list[Path]:
    """Write a commented study file and its schema into ``folder`` (refusing to overwrite a study)."""
    root = Path(folder).expanduser()
    path = root / STUDY_FILE
    if path.exists():
        raise BenchlabError("a study file is already here (edit it, or choose another folder)", path)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchlabError(f"cannot create the study folder ({exc.strerror or exc})", root) from exc
    atomic_write_text(path, study_template(task) + ("\n" + online_template() if online else ""))
    schema = root / SCHEMA_FILE
    atomic_write_text(schema, json.dumps(study_schema(task), indent=2) + "\n")
    return [path, schema]
