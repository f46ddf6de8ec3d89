"""Answers written the way real chat models write them (BRIEF §5b), for any signature.

:func:`render` writes a signature's output values as an answer in DSPy's chat layout (or as a JSON
object), with any set of the deviations in :data:`KINDS`. The values stay the same: a tolerant
reader must parse every rendering to the values of the clean one.
"""

from __future__ import annotations

import enum
import json
import random
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

KINDS = (
    "preamble",        # "Sure! Here is my assessment." before the answer
    "answer-fence",    # the whole answer in a ``` fence
    "field-fence",     # each structured value in a ```json fence
    "title-case",      # enum values in Title Case: "Major", "Untranslated Text"
    "yes-no",          # booleans as yes / no
    "key-case",        # JSON keys in Title Case: "Severity"
    "bold-headers",    # **[[ ## field ## ]]**
    "no-marker",       # no [[ ## completed ## ]]
    "closing-remark",  # "I hope this helps!" at the end
    "json-answer",     # a JSON object although the chat layout was asked for
    "markdown-headings",  # "## errors" instead of [[ ## errors ## ]]
)
PREAMBLE = "Sure! Here is my assessment.\n\n"
REMARK = "\n\nI hope this helps! Let me know if you need anything else."


def _restyle(value: Any, annotation: Any, kinds: set[str], top: bool = False) -> Any:
    origin = get_origin(annotation)
    if annotation is bool and isinstance(value, bool) and "yes-no" in kinds:
        word = "yes" if value else "no"
        return word.capitalize() if top else word
    is_enum = isinstance(annotation, type) and issubclass(annotation, enum.Enum)
    if (origin is Literal or is_enum) and isinstance(value, str) and "title-case" in kinds:
        return value.title()
    if origin in (list, tuple) and isinstance(value, list):
        return [_restyle(v, get_args(annotation)[0], kinds) for v in value]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and isinstance(value, dict):
        fields = annotation.model_fields
        restyled = {k: _restyle(v, fields[k].annotation, kinds) if k in fields else v for k, v in value.items()}
        if "key-case" in kinds:
            restyled = {k.replace("_", " ").title(): v for k, v in restyled.items()}
        return restyled
    return value


def plain(value: Any) -> Any:
    """A typed value as JSON-able data (pydantic models dumped in field order)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _chat(signature: Any, values: dict[str, Any], kinds: set[str]) -> str:
    parts = []
    for name, field in signature.output_fields.items():
        value = values[name]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if "field-fence" in kinds and not isinstance(value, str):
            text = f"```json\n{text}\n```"
        header = f"## {name.replace('_', ' ').title()}" if "markdown-headings" in kinds else f"[[ ## {name} ## ]]"
        parts.append(f"**{header}**\n{text}" if "bold-headers" in kinds else f"{header}\n{text}")
    body = "\n\n".join(parts)
    last_is_text = isinstance(values[list(signature.output_fields)[-1]], str)
    if "no-marker" not in kinds and "markdown-headings" not in kinds:
        body += "\n\n[[ ## completed ## ]]"
        if "closing-remark" in kinds:
            body += REMARK
    elif "closing-remark" in kinds and not last_is_text and "markdown-headings" not in kinds:
        body += REMARK  # after free text with no marker a remark would be part of that text: ambiguous
    return body


def render(signature: Any, outputs: dict[str, Any], kinds: set[str] | frozenset[str] = frozenset(),
           layout: str = "chat") -> str:
    """The answer carrying ``outputs`` (typed or plain values) with the deviations ``kinds``."""
    kinds = set(kinds)
    values = {name: _restyle(plain(outputs[name]), field.annotation, kinds, top=True)
              for name, field in signature.output_fields.items()}
    if layout == "json" or "json-answer" in kinds:
        if "key-case" in kinds:
            values = {k.replace("_", " ").title(): v for k, v in values.items()}
        text = json.dumps(values, ensure_ascii=False, indent=2)
        if "answer-fence" in kinds or "field-fence" in kinds:
            text = f"```json\n{text}\n```"
        text = (PREAMBLE if "preamble" in kinds else "") + text
        return text + (REMARK if "closing-remark" in kinds else "")
    text = _chat(signature, values, kinds)
    if "answer-fence" in kinds:
        text = f"```\n{text}\n```"
    return (PREAMBLE if "preamble" in kinds else "") + text


def random_kinds(rng: random.Random, rate: float) -> set[str]:
    """With probability ``rate``, one to three deviation kinds; else none (a clean answer)."""
    if rng.random() >= rate:
        return set()
    return set(rng.sample(KINDS, rng.randint(1, 3)))


def deviating_renderer(rate: float, seed: int = 0):
    """A loopback ``render`` hook: a share ``rate`` of answers deviate (one to three kinds each).

    The choice is a hash of the request (signature and inputs), not of arrival order, so a run is
    reproducible under any concurrency, and the same request always gets the same answer text.
    ``renderer.kinds`` counts the deviations written, ``renderer.answers`` the answers by
    ``"clean"`` / ``"deviating"``.
    """
    import hashlib
    from collections import Counter

    from tests.support.mqm_fakes import SIGNATURES

    counts: Counter = Counter()
    answers: Counter = Counter()

    def renderer(name: str, inputs: dict[str, Any], outputs: dict[str, Any]) -> str:
        digest = hashlib.sha256(f"{seed}\0{name}\0{json.dumps(inputs, sort_keys=True)}".encode()).hexdigest()
        kinds = random_kinds(random.Random(int(digest[:12], 16)), rate)
        counts.update(kinds)
        answers["deviating" if kinds else "clean"] += 1
        return render(SIGNATURES[name], outputs, kinds)

    renderer.kinds = counts
    renderer.answers = answers
    return renderer
