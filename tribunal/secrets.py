"""Keep secrets out of everything tribunal writes: params, tags, logs, artifacts, exports."""

from __future__ import annotations

import os
import re
from typing import Any, Mapping

_SECRET_NAME = re.compile(r"(api[_-]?key|secret|token|password|authorization|bearer)", re.IGNORECASE)
_MIN_SECRET_LENGTH = 8


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names look like credentials."""
    environ = os.environ if environ is None else environ
    return sorted(
        {v for k, v in environ.items() if _SECRET_NAME.search(k) and len(v) >= _MIN_SECRET_LENGTH},
        key=len,
        reverse=True,
    )


def redact_text(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace every credential value found in the environment with ``***``."""
    for value in secret_values(environ):
        text = text.replace(value, "***")
    return text


def redact(data: Any, environ: Mapping[str, str] | None = None) -> Any:
    """Recursively drop credential-named keys and mask credential values in strings."""
    if isinstance(data, Mapping):
        return {
            k: ("***" if _SECRET_NAME.search(str(k)) else redact(v, environ)) for k, v in data.items()
        }
    if isinstance(data, (list, tuple)):
        return type(data)(redact(v, environ) for v in data)
    if isinstance(data, str):
        return redact_text(data, environ)
    return data
