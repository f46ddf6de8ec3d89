"""Rule registry: a name maps to a factory taking :class:`RuleOptions`."""

from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel, ConfigDict

from tribunal.eval.equiv.rules.base import EquivalenceRule
from tribunal.eval.equiv.rules.embedding import DEFAULT_EMBEDDER, DEFAULT_EMBEDDING_THRESHOLD, EmbeddingRule
from tribunal.eval.equiv.rules.tfidf import DEFAULT_TFIDF_THRESHOLD, TfidfRule


class RuleOptions(BaseModel):
    """Everything a rule may need; each factory reads its own fields."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    tfidf_threshold: float = DEFAULT_TFIDF_THRESHOLD
    embedding_threshold: float = DEFAULT_EMBEDDING_THRESHOLD
    embedder: str = DEFAULT_EMBEDDER
    rubric: str = "full"
    lm: Any = None
    lm_name: str | None = None
    threads: int = 4
    program: Any = None
    program_label: str | None = None


def _llm(options: RuleOptions) -> EquivalenceRule:
    from tribunal.eval.equiv.rules.llm import LLMJudgeRule

    if options.lm is None:
        raise ValueError("the llm rule needs an LM (--lm MODEL)")
    return LLMJudgeRule(options.lm, options.rubric, options.threads, options.lm_name,
                        options.program, options.program_label)


RULES: dict[str, Callable[[RuleOptions], EquivalenceRule]] = {
    "tfidf": lambda o: TfidfRule(o.tfidf_threshold),
    "embedding": lambda o: EmbeddingRule(o.embedding_threshold, o.embedder),
    "llm": _llm,
}


def build_rule(name: str, options: RuleOptions | None = None) -> EquivalenceRule:
    """The rule registered under ``name``."""
    if name not in RULES:
        raise ValueError(f"unknown rule {name!r} (have {', '.join(RULES)})")
    return RULES[name](options or RuleOptions())


def parse_rule_names(text: str) -> list[str]:
    """``"tfidf,embedding"`` -> ``["tfidf", "embedding"]``, checked against the registry."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in RULES]
    if unknown or not names:
        raise ValueError(f"--rules {text!r}: unknown or empty (have {', '.join(RULES)})")
    return list(dict.fromkeys(names))
