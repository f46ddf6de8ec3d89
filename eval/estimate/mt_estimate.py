"""``tribunal mt evaluate --estimate``: the run rehearsed on its own items, nothing sent, nothing tracked.

The items are selected as the run selects them (those already in ``--out``'s journal are not judged
again, so they are not counted), the program is built as the run builds it
(:func:`tribunal.eval.mt.judge_builder.program_factory`: demos, role LMs, a tuned export), with a
:class:`~tribunal.eval.estimate.rehearsal.RehearsalEngine` in place of the HTTP engine, and every item is
judged once per scenario. The call structure each judge declares (``Judge.calls``) is the estimate's rule.
"""

from __future__ import annotations

import typing
from typing import Any

import dspy

from tribunal.eval.estimate.answers import sample_value
from tribunal.eval.estimate.estimate import Estimate, build_estimate
from tribunal.eval.estimate.measured import measured_run
from tribunal.eval.estimate.rehearsal import RehearsalEngine, SignatureWatch, rehearsal_settings
from tribunal.eval.estimate.tokens import counter_for
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.eval.mt.journal import Journal, journal_path
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.programs.lm import DEFAULT_SERVER_MAX_TOKENS, effective_max_tokens
from tribunal.programs.local_models import is_local
from tribunal.programs.pricing import model_prices

DEFAULT_PROVIDER_LIMIT = 4096  # a hosted model's answer limit when neither --max-tokens nor the price table says


def answer_limit(settings: Any) -> int:
    """The completion tokens a call may take: the requests' limit, else the model's own (price table)."""
    limit = effective_max_tokens(settings)
    if limit is not None:
        return limit
    entry = model_prices(settings.model) or {}
    return int(entry.get("max_output_tokens") or entry.get("max_tokens") or DEFAULT_PROVIDER_LIMIT)


def pending_items(config: EvaluateConfig) -> tuple[list, dict[str, str]]:
    """The run's items still to judge, and the language names, as :func:`tribunal.eval.mt.job.run_evaluation`."""
    from tribunal.data.mtme import LanguagePair  # heavy: pulls in numpy
    from tribunal.data.score_cache import ScoreCache  # heavy: pulls in numpy
    from tribunal.eval.mt.items import select_items  # heavy: pulls in numpy
    from tribunal.programs.mqm.demos import LANGUAGES  # heavy: pulls in pandas

    if config.data is None:
        raise ValueError("no data folder given")
    pair = LanguagePair(config.data, config.lp, cache=ScoreCache.default())
    items = select_items(pair, config.systems, config.rated_only, config.limit, config.segment)
    journal_file = journal_path(config.output_dir, config.config_signature())
    journal = Journal(journal_file, config.config_signature()) if journal_file.exists() else None
    pending = [i for i in items.items.values() if journal is None or not journal.done(i.key, config.retry_unscored)]
    src, _, tgt = config.lp.partition("-")
    return pending, {"source_lang": LANGUAGES.get(src, src), "target_lang": LANGUAGES.get(tgt, tgt)}


def labelled_candidates(signature: Any, scenario: str, inputs: dict, outputs: dict) -> dict:
    """A shape for a signature shown labelled ``candidates`` (a judge of a source's candidates together):
    each list answer whose entries name a ``candidate`` gets one entry per label shown, as a valid answer has."""
    labels = [getattr(c, "label", None) for c in inputs.get("candidates") or ()]
    if not labels or None in labels:
        return outputs
    for name, field in signature.output_fields.items():
        entry = (typing.get_args(field.annotation) or (None,))[0]
        if typing.get_origin(field.annotation) is list and "candidate" in getattr(entry, "model_fields", {}):
            made = sample_value(entry, scenario, "")  # one entry of the scenario's shape, for each label
            outputs[name] = [{**made, "candidate": label} for label in labels]  # sample_value makes a model a dict
    return outputs


def rehearse(config: EvaluateConfig, items: list, languages: dict[str, str], scenario: str,
             counter: Any, limit: int) -> list:
    """Every item judged once by the program answered with ``scenario``'s made-up values: the calls."""
    from tribunal.eval.mt.judge_builder import program_factory  # heavy: pulls in pandas (demos)
    from tribunal.eval.mt.judging import judge_group, judge_item, judging_units  # heavy: pulls in numpy

    watch = SignatureWatch()
    engine = RehearsalEngine(scenario, counter, watch, limit, answers_in_json=is_local(config.lm.model),
                             shape=labelled_candidates)
    quiet = config.model_copy(update={"lm": rehearsal_settings(config.lm)})
    make = program_factory(quiet, engine)
    program = make()
    with dspy.context(callbacks=[*dspy.settings.callbacks, watch]):
        for unit in judging_units(items, config.judge.together):
            if config.judge.together:
                judge_group(program, unit, languages)
            else:
                judge_item(program, unit[0], languages, config.sampling)
    return engine.calls


def estimate_evaluation(config: EvaluateConfig, tracking: TrackingSettings) -> Estimate:
    """What ``config``'s run would spend (see :mod:`tribunal.eval.estimate.estimate`); sends nothing."""
    items, languages = pending_items(config)
    counter = counter_for(config.lm.model)
    limit = answer_limit(config.lm) if not is_local(config.lm.model) else \
        (config.lm.max_tokens or DEFAULT_SERVER_MAX_TOKENS)
    low = rehearse(config, items, languages, "low", counter, limit)
    high = rehearse(config, items, languages, "high", counter, limit)
    judge = config.judge
    rule = judge.calls.rule if judge.calls.fixed else f"{judge.calls.rule} (calls depend on the answers)"
    models = {role: own.model for role, own in config.role_lms.items()}
    return build_estimate(judge.title, len(items), low, high, models, config.lm.model, limit, rule, counter,
                          config.concurrency, measured_run(tracking, config.program, config.lm.model),
                          batch=config.batch.enabled)
