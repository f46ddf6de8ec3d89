"""The paper preset's demo choice, kept across runs in the parsed-data cache.

Choosing the fixed demos (:mod:`tribunal.programs.mqm.fixed_demos`) parses the whole TED MQM file
and ranks every short segment by sha256 five times: about a quarter of a second, the same for every
run of a pair. The choice (each agent's sources, translations and typed errors) is stored as JSON in
a :class:`~tribunal.data.score_cache.ScoreCache` entry of the TED file, whose kind names
everything else the choice depends on (the caller's ``setting``: the rule's version, the pair's mix,
the count, coupled or not, guided or not, and the fields of the error types). A changed TED file is
chosen from anew (the cache checks it as it checks a score file); an entry that no longer validates
is a miss.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable

from pydantic import ValidationError

from tribunal.data.errors import DataFormatError
from tribunal.data.score_cache import Parsed, ScoreCache

Chosen = dict[str, list[tuple[str, str, list]]]
"""``{agent: [(source, translation, typed errors)]}``: the demos a rule picks, before they become examples."""


def _encode(chosen: Chosen) -> Parsed:
    blob = {agent: [[source, translation, [e.model_dump(mode="json") for e in errors]]
                    for source, translation, errors in demos] for agent, demos in chosen.items()}
    return Parsed(strings={"chosen": [json.dumps(blob, ensure_ascii=False)]})


def _decode(parsed: Parsed, model_of: Callable[[str], type]) -> Chosen:
    blob = json.loads(parsed.strings["chosen"][0])
    chosen: Chosen = {}
    for agent, demos in blob.items():
        model = model_of(agent)
        chosen[agent] = [(source, translation, [model.model_validate(e) for e in errors])
                         for source, translation, errors in demos]
    return chosen


def cached_choice(cache: ScoreCache, path: Path, setting: list[Any], choose: Callable[[bytes], Chosen],
                  model_of: Callable[[str], type]) -> Chosen:
    """``choose(content of path)``, from ``cache`` when it holds the choice for ``setting`` and the file as it is.

    ``setting``: JSON-able, everything besides the file that the choice depends on; ``model_of(agent)``:
    the error type of an agent's demos.
    """
    path = Path(path)
    if not path.is_file():
        raise DataFormatError(path, None, "file not found")
    kind = "fixed-demos-" + hashlib.sha256(json.dumps(setting).encode()).hexdigest()[:16]
    try:
        return _decode(cache.load(path, kind, lambda content: _encode(choose(content))), model_of)
    except (KeyError, IndexError, TypeError, ValueError, ValidationError):  # an entry of another layout: choose anew
        return _decode(_encode(choose(path.read_bytes())), model_of)
