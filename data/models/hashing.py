"""SHA-256 of what a model and a person saw, computed the same way everywhere so that two files can be matched.

A prompt is hashed as canonical JSON of its messages (``[{"role": ..., "content": ...}]``, sorted keys, no spaces,
UTF-8): the same messages give the same hash whatever wrote them. A stimulus is hashed as its UTF-8 text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable


def prompt_sha256(messages: Iterable[tuple[str, str]]) -> str:
    """The hash of a chat prompt (role, content) pairs."""
    payload = [{"content": content, "role": role} for role, content in messages]
    data = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def text_sha256(text: str) -> str:
    """The hash of a stimulus text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
