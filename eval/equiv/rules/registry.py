"""Rule registry: a name maps to a factory taking :class:`RuleOptions`.

Rules built from one set of options share what is expensive through ``options.pool``: one
embedding model per embedder name (the embedding rule, the chain rule and the cascade's
screen load it once) and one LLM judge per rubric (``llm`` and ``cascade`` in the same run
pay for a pair once).
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tribunal.eval.equiv.calibration import RateTarget
from tribunal.eval.equiv.defaults import CASCADE_HIGH, CASCADE_LOW
from tribunal.eval.equiv.rules.base import EquivalenceRule
from tribunal.eval.equiv.rules.chain import DEFAULT_CHAIN_THRESHOLD, ChainRule
from tribunal.eval.equiv.rules.embedding import DEFAULT_EMBEDDER, DEFAULT_EMBEDDING_THRESHOLD, EmbeddingRule
from tribunal.eval.equiv.rules.encoders import CachedEmbedder
from tribunal.eval.equiv.rules.tfidf import DEFAULT_TFIDF_THRESHOLD, TfidfRule
from tribunal.eval.equiv.rules.cascade import CascadeRule
from tribunal.eval.equiv.rules.llm import LLMJudgeRule

# The cascade's band on the chain rule's score (how it was set: tribunal.eval.equiv.defaults).
DEFAULT_CASCADE_LOW = CASCADE_LOW
DEFAULT_CASCADE_HIGH = CASCADE_HIGH


# Thresholds, bands and rates are scores or shares: finite, in [0, 1].
Unit = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class RuleOptions(BaseModel):
    """Everything a rule may need; each factory reads its own fields."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    tfidf_threshold: Unit = DEFAULT_TFIDF_THRESHOLD
    embedding_threshold: Unit | Literal["auto"] = DEFAULT_EMBEDDING_THRESHOLD
    embedding_target_rate: Unit | None = None  # for "auto": None = match the other rules of the run
    embedder: str = DEFAULT_EMBEDDER
    chain_threshold: Unit = DEFAULT_CHAIN_THRESHOLD
    chain_steps: Literal["embedding", "tfidf"] = "embedding"
    chain_extra_steps: Literal["different", "allowed"] = "different"
    cascade_low: Unit = DEFAULT_CASCADE_LOW
    cascade_high: Unit = DEFAULT_CASCADE_HIGH
    rubric: str = "full"
    lm: Any = None
    lm_name: str | None = None
    threads: int = 4
    program: Any = None
    program_label: str | None = None
    pool: Any = None  # a dict shared by the rules of one run (see the module docstring)

    @model_validator(mode="after")
    def _band_in_order(self) -> "RuleOptions":
        if self.cascade_low > self.cascade_high:
            raise ValueError(f"--cascade-low {self.cascade_low:g} is above --cascade-high {self.cascade_high:g}")
        return self


def _shared(options: RuleOptions, key: tuple, make: Callable[[], Any]) -> Any:
    if options.pool is None:
        return make()
    if key not in options.pool:
        options.pool[key] = make()
    return options.pool[key]


def _embedder(options: RuleOptions) -> CachedEmbedder:
    return _shared(options, ("embedder", options.embedder), lambda: CachedEmbedder(options.embedder))


def _embedding(options: RuleOptions) -> EquivalenceRule:
    if options.embedding_threshold == "auto":
        return EmbeddingRule(None, options.embedder, cache=_embedder(options),
                             target=RateTarget(rate=options.embedding_target_rate))
    return EmbeddingRule(options.embedding_threshold, options.embedder, cache=_embedder(options))


def _chain(options: RuleOptions) -> ChainRule:
    cache = _embedder(options) if options.chain_steps == "embedding" else None
    return ChainRule(options.chain_threshold, options.chain_steps, options.embedder,
                     options.chain_extra_steps == "allowed", cache=cache)


def _llm(options: RuleOptions) -> EquivalenceRule:
    if options.lm is None:
        raise ValueError("the llm rule needs an LM (--lm MODEL)")
    return _shared(options, ("llm", options.rubric, options.program_label),
                   lambda: LLMJudgeRule(options.lm, options.rubric, options.threads, options.lm_name,
                                        options.program, options.program_label))


def _cascade(options: RuleOptions) -> EquivalenceRule:
    return CascadeRule(_chain(options), _llm(options), options.cascade_low, options.cascade_high)


RULES: dict[str, Callable[[RuleOptions], EquivalenceRule]] = {
    "tfidf": lambda o: TfidfRule(o.tfidf_threshold),
    "embedding": _embedding,
    "chain": _chain,
    "llm": _llm,
    "cascade": _cascade,
}
# Rules that consult the LLM judge (built once per rubric).
LLM_RULES = frozenset({"llm", "cascade"})


def build_rule(name: str, options: RuleOptions | None = None) -> EquivalenceRule:
    """The rule registered under ``name``."""
    if name not in RULES:
        raise ValueError(f"unknown rule {name!r} (have {', '.join(RULES)})")
    return RULES[name](options or RuleOptions())


def link_calibration_peers(rules: Sequence[EquivalenceRule]) -> None:
    """Give each auto-threshold embedding rule without a fixed target the run's other rules to match."""
    for rule in rules:
        target = getattr(rule, "target", None)
        if isinstance(target, RateTarget) and target.rate is None:
            target.peers = [r for r in rules if not isinstance(r, EmbeddingRule)]
            if not target.peers:
                raise ValueError("--embedding-threshold auto matches the other rules' same-pair rate: "
                                 "add another rule (e.g. --rules tfidf,chain,embedding) or give --embedding-target-rate")


def parse_rule_names(text: str) -> list[str]:
    """``"tfidf,embedding"`` -> ``["tfidf", "embedding"]``, checked against the registry."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in RULES]
    if unknown or not names:
        raise ValueError(f"--rules {text!r}: unknown or empty (have {', '.join(RULES)})")
    return list(dict.fromkeys(names))
