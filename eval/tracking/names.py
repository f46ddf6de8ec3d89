"""Names MLflow accepts, built from text it may not: failure reasons, metric names, user text.

MLflow keys (metrics, params, tags) allow letters, digits, ``_ - . : /`` and spaces, at most 250
characters, and must not read as a path that normalises to another name (``a//b``, ``../x``). Run
names are free text; like every string tribunal sends out, they are redacted first.
"""

from __future__ import annotations

import re

from tribunal.secrets import redact_text

MAX_KEY_LENGTH = 250
_NOT_ALLOWED = re.compile(r"[^/\w.\- :]")


def entity_key(name: object) -> str:
    """``name`` as a valid MLflow metric/param/tag key (other characters become ``_``)."""
    text = _NOT_ALLOWED.sub("_", redact_text(str(name)))
    parts = [part for part in text.split("/") if part not in ("", ".", "..")]
    return "/".join(parts)[:MAX_KEY_LENGTH].rstrip("/") or "_"


def slug(text: object) -> str:
    """A short lower-case identifier for free text.

    ``"server error (retries exhausted)"`` -> ``server_error_retries_exhausted``.
    """
    return re.sub(r"[^0-9a-z]+", "_", redact_text(str(text)).lower()).strip("_") or "other"


def run_name(name: object) -> str:
    """A run name: redacted, one line, at most 250 characters."""
    return " ".join(redact_text(str(name)).split())[:MAX_KEY_LENGTH]
