"""``benchlab study reconcile`` and ``benchlab study set-password``, declared once (the study group lists them)."""

from __future__ import annotations

import getpass
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from benchlab.annotations.cards import help_of
from benchlab.annotations.core_cards import CARDS
from benchlab.annotations.options import Options, option
from benchlab.annotations.registry import registry
from benchlab.annotations.task import Command, ToolGroup
from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:  # the study module imports the online package
    from benchlab.annotations.study import Study


class ReconcileOptions(Options):
    folder: Path = option(label="Study folder", argument=True, help="The study folder (holding study.toml).")
    submissions: Path = option(label="Submissions export", help="The platform's submissions CSV (Prolific's "
                               "export or MTurk's batch results).")
    out: Path | None = option(None, label="Decisions CSV", help="Where to write the approve/reject decisions "
                              "(default: reconcile-<export name> beside the export).")


def reconcile_command(opts: ReconcileOptions) -> str:
    # deferred: loaded only when the command runs (`benchlab --help` imports every command module)
    from benchlab.annotations.online import reconcile
    from benchlab.annotations.study import load_study

    study = load_study(opts.folder, registry())
    rows = reconcile.reconcile(study, opts.submissions)
    out = opts.out or opts.submissions.with_name(f"reconcile-{opts.submissions.name}")
    if out.resolve() in (opts.submissions.resolve(), study.path.resolve()):
        raise BenchlabError("the decisions file would overwrite an input; choose another --out", out)
    atomic_write_text(out, reconcile.to_csv(rows))
    return f"{reconcile.table(rows)}\ndecisions written to {out} (holds platform ids: keep it private)"


class SetPasswordOptions(Options):
    folder: Path = option(label="Study folder", argument=True, help="The study folder (holding study.toml).")


def set_password_command(opts: SetPasswordOptions) -> str:
    # deferred: loaded only when the command runs (`benchlab --help` imports every command module)
    from benchlab.annotations.online.password import set_password

    if not (opts.folder / "study.toml").is_file():
        raise BenchlabError("no study file here", opts.folder / "study.toml")
    if sys.stdin.isatty():
        first, second = getpass.getpass("Dashboard password: "), getpass.getpass("Again: ")
        if first != second:
            raise BenchlabError("the two passwords differ; nothing was changed")
        password = first
    else:  # piped: the first line
        password = sys.stdin.readline().rstrip("\r\n")
    path = set_password(opts.folder, password)
    return f"password set (salted scrypt hash in {path}); serve --study {opts.folder} --admin opens the dashboard"


def online_summary(study: Study) -> str:
    """``study show``'s line for an online study: the study link's places held against the quotas, invited places
    (private links, terminal seats: outside the quotas) apart, freed and declined places."""
    # deferred: the places module reads session files; `benchlab --help` imports this module
    from benchlab.annotations.online import places
    from benchlab.annotations.online.joins import paused

    online = study.spec.online
    assert online is not None
    rows = places.places(study)
    held = Counter(p.arm for p in rows if p.on_quota)
    invited = sum(1 for p in rows if p.counts and not p.on_quota)
    arms = ", ".join(f"{a.name} {held[a.name]}" + (f"/{online.arm_quotas[a.name]}" if a.name in online.arm_quotas
                                                   else "") for a in study.spec.arms)
    total = f"{sum(held.values())}" + (f" of {online.quota}" if online.quota else "")
    freed = sum(1 for p in rows if p.abandoned)
    outside = f" + {invited} invited (outside the quotas)" if invited else ""
    return (f"  online ({online.platform}{', paused' if paused(study) else ''}): {total} places held ({arms})"
            f"{outside}; {freed} abandoned, {sum(1 for p in rows if p.state == 'declined')} declined (no place)")


#: ``study reconcile`` and ``study set-password`` (named for their cards, which lay out their --help pages)
RECONCILE = Command("tool", help_of(CARDS, "study reconcile"), ReconcileOptions, reconcile_command, name="reconcile")
SET_PASSWORD = Command("tool", help_of(CARDS, "study set-password"), SetPasswordOptions, set_password_command,
                       name="set-password")


def commands(study_group: ToolGroup) -> tuple[Command, ...]:
    """The two commands in ``study_group``."""
    return (replace(RECONCILE, tool=study_group), replace(SET_PASSWORD, tool=study_group))


class StudyServeOptions(Options):
    """``benchlab serve --study DIR``: one study link for a crowd (the study's ``[online]`` section)."""

    study: Path | None = option(None, label="Study folder", widget="folder",
                                help="Serve this online study: one link /join/<token> for everybody (the study "
                                "file's [online] section; benchlab study init --online writes one).")
    admin: bool = option(False, label="Dashboard", help="With --study: the experimenter dashboard at /admin "
                         "(password: benchlab study set-password).")
    host: str = option("127.0.0.1", label="Host", help="With --study: address to listen on (127.0.0.1: this "
                       "machine only; put a TLS proxy in front for the internet).")
    port: int = option(8000, label="Port", ge=0, le=65535, help="With --study: port to listen on.")
    public_url: str | None = option(None, label="Public URL", help="With --study: the address participants "
                                    "reach (the proxy's https://...), used in the printed study link.")
    terminal_page: bool = option(False, label="Terminal page", help="With --study: the terminal-in-browser page "
                                 "even when the benchmark has a native web page.")
    participants: Path | None = option(None, label="Private links", help="With --study: also give each person of "
                                       "this CSV (an id column) a private link in the same study (arm by the "
                                       "study's rule when their session starts).")
