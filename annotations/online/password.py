"""The experimenter dashboard's password: stored only as a salted scrypt hash in the study's private folder, so
a copied study folder does not give the password away, and a guess costs real time and memory."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from pathlib import Path

from benchlab.annotations.online.private import PASSWORD_FILE, PRIVATE_DIR, private_dir
from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError

#: scrypt cost (n=2**14, r=8: ~16 MiB and tens of milliseconds per guess).
N, R, P = 2**14, 8, 1
MIN_LENGTH = 10


def _hash(password: str, salt: bytes, n: int = N, r: int = R, p: int = P) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024, dklen=32)


def set_password(study_folder: Path, password: str) -> Path:
    """Store a new salted hash of ``password`` (refusing short ones)."""
    if len(password) < MIN_LENGTH:
        raise BenchlabError(f"the password needs at least {MIN_LENGTH} characters")
    salt = secrets.token_bytes(16)
    record = {"scheme": "scrypt", "n": N, "r": R, "p": P, "salt": salt.hex(), "hash": _hash(password, salt).hex()}
    path = private_dir(study_folder) / PASSWORD_FILE
    atomic_write_text(path, json.dumps(record) + "\n")
    path.chmod(0o600)
    return path


def has_password(study_folder: Path) -> bool:
    return (study_folder / PRIVATE_DIR / PASSWORD_FILE).is_file()


def check_password(study_folder: Path, password: str) -> bool:
    """``True`` when ``password`` is the stored one (constant-time comparison)."""
    try:
        record = json.loads((study_folder / PRIVATE_DIR / PASSWORD_FILE).read_text(encoding="utf-8"))
        salt, stored = bytes.fromhex(record["salt"]), bytes.fromhex(record["hash"])
        n, r, p = int(record["n"]), int(record["r"]), int(record["p"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return hmac.compare_digest(_hash(password[:1024], salt, n, r, p), stored)
