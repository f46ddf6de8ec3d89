"""The perturbation suite: seed hypotheses and the perturbations built from them.

A seed is a causal chain whose statement and explanation are templates over the steps
(``{0}`` = the initiating event, ...), plus an alias table per entity and one replacement
step for each swap. Four perturbations are built from every seed (wording-only, wording-chain,
first- and middle-step swapped); three more where the seed gives them, as people make them: the
chain renamed through aliases (``alias_chain``), and one entity, number, direction or relation
changed at the start and in the middle (``first_minimal``, ``middle_minimal``). Each is built
deterministically and validated by :mod:`checks`; a file may also hold ready-made pairs (e.g.
from the LM generator), which are checked the same way when loaded.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tribunal.eval.equiv.checks import EXPECTED_SAME, PERTURBATION_KINDS, check_perturbation
from tribunal.core.hypothesis import Hypothesis, Step
from tribunal.eval.tracking.signature import files_hash

SUITE_FILE = "hypotheses.jsonl"
REWORDINGS_FILE = "rewordings.json"


class SeedStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entity: str
    aliases: list[str] = Field(min_length=1)


class MiddleSwap(SeedStep):
    index: int = Field(ge=1)


class MinimalSwap(BaseModel):
    """One entity, number, direction or relation changed in one place: a step's new ``text``
    (step ``index``) or a new ``relation`` (link ``index``); ``change`` says which."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(default=0, ge=0)
    text: str | None = None
    relation: str | None = None
    change: Literal["entity", "number", "direction", "relation"]

    @model_validator(mode="after")
    def _one_change(self) -> "MinimalSwap":
        if (self.text is None) == (self.relation is None):
            raise ValueError("a minimal swap gives either a step text or a relation")
        return self


class Seed(BaseModel):
    """One hypothesis of the suite, with what its perturbations need."""

    model_config = ConfigDict(extra="forbid")

    id: str
    domain: str
    steps: list[SeedStep]
    relations: list[str]
    statement: str
    explanation: str
    first_swap: SeedStep
    middle_swap: MiddleSwap
    # the kinds people make (optional: a seed without them gives the four kinds above)
    first_minimal: MinimalSwap | None = None
    middle_minimal: MinimalSwap | None = None
    alias_chain: list[str] | None = None


class SuitePair(BaseModel):
    """An original hypothesis and one perturbation of it (or any labelled pair: ``a``, ``b``).

    ``label`` is the expected verdict; for the four perturbation kinds it follows from the kind
    when not given, any other kind (a user's own pairs) must carry it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: str
    original: Hypothesis
    perturbed: Hypothesis
    label: Literal["same", "different"] | None = None

    @model_validator(mode="after")
    def _known_label(self) -> "SuitePair":
        if self.label is None and self.kind not in EXPECTED_SAME:
            raise ValueError(f"pair {self.id}: kind {self.kind!r} needs a label ('same' or 'different')")
        return self

    @property
    def expected_same(self) -> bool:
        return self.label == "same" if self.label is not None else EXPECTED_SAME[self.kind]


class Suite(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    hash: str
    pairs: tuple[SuitePair, ...]

    def hypotheses(self) -> list[Hypothesis]:
        """Every distinct hypothesis in the pairs (originals once)."""
        seen: dict[str, Hypothesis] = {}
        for pair in self.pairs:
            seen.setdefault(pair.original.id, pair.original)
            seen.setdefault(pair.perturbed.id, pair.perturbed)
        return list(seen.values())


def _sentence_case(text: str) -> str:
    # Capitalise a leading lowercase word, but leave names like "mTORC1" or "p53" alone.
    if len(text) > 1 and text[0].islower() and text[1].islower():
        return text[0].upper() + text[1:]
    return text


def _fill(template: str, names: list[str]) -> str:
    return ". ".join(_sentence_case(s) for s in template.format(*names).split(". "))


def _reword(text: str, table: dict[str, str]) -> str:
    """Replace every phrase of ``table`` in one pass (so replacements are never re-replaced)."""
    pattern = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda m: table[m.group(0)], text)


def _hypothesis(seed: Seed, suffix: str, chain: list[SeedStep], chain_names: list[str],
                explanation_names: list[str] | None = None, explanation: str | None = None,
                relations: list[str] | None = None) -> Hypothesis:
    return Hypothesis(
        id=f"{seed.id}/{suffix}",
        statement=_fill(seed.statement, chain_names),
        explanation=_fill(explanation or seed.explanation, explanation_names or chain_names),
        steps=tuple(Step(entity=s.entity, text=n) for s, n in zip(chain, chain_names)),
        relations=tuple(relations or seed.relations),
    )


def _minimal(seed: Seed, kind: str, swap: MinimalSwap) -> Hypothesis:
    """The seed with one step's text (its new entity) or one relation replaced."""
    chain, relations = list(seed.steps), list(seed.relations)
    if swap.relation is not None:
        relations[swap.index] = swap.relation
    else:
        chain[swap.index] = SeedStep(entity=swap.text, aliases=[swap.text])
    return _hypothesis(seed, f"{kind}/{swap.change}", chain, [s.entity for s in chain], relations=relations)


def _people_kinds(seed: Seed) -> dict[str, Hypothesis]:
    """The alias rewording and the two minimal swaps, where the seed gives them."""
    built = {}
    if seed.alias_chain is not None:
        if len(seed.alias_chain) != len(seed.steps):
            raise ValueError(f"seed {seed.id}: alias_chain needs one text per step")
        built["alias-chain"] = _hypothesis(seed, "alias-chain", seed.steps, list(seed.alias_chain))
    for kind, swap in (("first-step-minimal", seed.first_minimal), ("middle-step-minimal", seed.middle_minimal)):
        if swap is not None:
            limit = len(seed.relations) if swap.relation is not None else len(seed.steps)
            if swap.index >= limit:
                raise ValueError(f"seed {seed.id}: {kind} index {swap.index} is out of range")
            built[kind] = _minimal(seed, kind, swap)
    return built


def build_pairs(seed: Seed, rewordings: dict[str, str]) -> list[SuitePair]:
    """The original and its four perturbations, each checked; an invalid one is an error."""
    canonical = [s.entity for s in seed.steps]
    aliased = [s.aliases[0] for s in seed.steps]
    original = _hypothesis(seed, "original", seed.steps, canonical)
    first = [seed.first_swap, *seed.steps[1:]]
    middle = list(seed.steps)
    middle[seed.middle_swap.index] = seed.middle_swap
    perturbed = {
        "wording-only": _hypothesis(seed, "wording-only", seed.steps, canonical, aliased,
                                    _reword(seed.explanation, rewordings)),
        "wording-chain": _hypothesis(seed, "wording-chain", seed.steps, aliased),
        "first-step-swapped": _hypothesis(seed, "first-step-swapped", first, [s.entity for s in first]),
        "middle-step-swapped": _hypothesis(seed, "middle-step-swapped", middle, [s.entity for s in middle]),
        **_people_kinds(seed),
    }
    aliases = seed_aliases(seed)
    pairs = []
    for kind in [k for k in PERTURBATION_KINDS if k in perturbed]:
        problems = check_perturbation(kind, original, perturbed[kind], aliases)
        if problems:
            raise ValueError(f"seed {seed.id}: {kind} perturbation invalid: {'; '.join(problems)}")
        pairs.append(SuitePair(id=f"{seed.id}/{kind}", kind=kind, original=original, perturbed=perturbed[kind]))
    return pairs


def seed_aliases(seed: Seed) -> dict[str, frozenset[str]]:
    """Entity -> its aliases, over the chain (with its alias rewording) and both replacement steps."""
    renamed = seed.alias_chain or [s.entity for s in seed.steps]
    aliases = {s.entity: frozenset([*s.aliases, name]) for s, name in zip(seed.steps, renamed)}
    return aliases | {s.entity: frozenset(s.aliases) for s in (seed.first_swap, seed.middle_swap)}


def default_suite_path() -> Path:
    return Path(str(resources.files("tribunal.eval.equiv") / "suite" / SUITE_FILE))


def rewordings_path() -> Path:
    return Path(str(resources.files("tribunal.eval.equiv") / "suite" / REWORDINGS_FILE))


@lru_cache(maxsize=1)
def default_rewordings() -> dict[str, str]:
    return json.loads(rewordings_path().read_text(encoding="utf-8"))


def load_suite(path: Path | None = None) -> Suite:
    """Load seeds (built into pairs) and ready-made pairs (re-checked) from a JSONL file."""
    path = Path(path) if path else default_suite_path()
    pairs: list[SuitePair] = []
    uses_seeds = False
    first_line: dict[str, int] = {}  # id -> the line that first used it
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("expected a JSON object")
            if record.get("id") in first_line:
                raise ValueError(f"duplicate id {record['id']!r} (first on line {first_line[record['id']]})")
            if isinstance(record.get("id"), str):
                first_line[record["id"]] = number
            if "kind" in record:
                pair = SuitePair.model_validate(record)
                problems = check_perturbation(pair.kind, pair.original, pair.perturbed)
                if problems:
                    raise ValueError(f"{pair.kind} perturbation invalid: {'; '.join(problems)}")
                pairs.append(pair)
            else:
                uses_seeds = True
                pairs.extend(build_pairs(Seed.model_validate(record), default_rewordings()))
        except ValueError as err:  # json and pydantic errors are ValueErrors
            raise ValueError(f"{path}:{number}: {err}") from err
    if not pairs:
        raise ValueError(f"{path}: no hypotheses")
    # the rewording table shapes the built pairs, so it is part of the data hash
    hashed = [path, rewordings_path()] if uses_seeds else [path]
    return Suite(name=path.stem, hash=files_hash(hashed), pairs=tuple(pairs))


def split_seeds(suite: Suite, first: int) -> tuple[Suite, Suite]:
    """The pairs of the first ``first`` seeds (by first appearance) and those of the rest, as two suites."""
    seeds = list(dict.fromkeys(p.original.id for p in suite.pairs))[:first]
    head = tuple(p for p in suite.pairs if p.original.id in seeds)
    tail = tuple(p for p in suite.pairs if p.original.id not in seeds)
    return (Suite(name=f"{suite.name}-seeds-1-{first}", hash=suite.hash, pairs=head),
            Suite(name=f"{suite.name}-seeds-{first + 1}-", hash=suite.hash, pairs=tail))

