"""tribunal's judges as MLflow GenAI scorers, for ``mlflow.genai.evaluate(data=..., scorers=[...])``.

    import mlflow
    from tribunal.scorers import MQMJudge, EquivalenceJudge, log_agreement

    data = [{"inputs": {"source": "...", "source_lang": "Chinese", "target_lang": "English"},
             "outputs": "the translation to judge",
             "expectations": {"human_mqm": -5.0}}]
    result = mlflow.genai.evaluate(data=data, scorers=[MQMJudge(program="mmad", lm="openai/gpt-4o-mini")])
    log_agreement(result, judge="mmad_mqm", human="human_mqm")   # kappa, confusion matrix, Pearson

- :class:`MQMJudge` runs any MT program of ``tribunal mt evaluate`` (M-MAD with any preset, strategy
  or ablation, GEMBA-MQM, EAPrompt, GEMBA-ESA, MQM-APE) or a tuned export (``program_file``) on the
  row's ``outputs`` (the translation; or ``inputs["translation"]``). Its run config and program come
  from the judging service (:func:`tribunal.service.judging.configure`,
  :func:`~tribunal.service.judging.judge_factory`), few-shot demos included, as ``mt evaluate``'s do, so
  its requests are byte for byte those of ``mt evaluate`` for the same item and settings. Its
  feedback value is the score; the rationale lists the errors; an item the judge cannot score
  gets feedback with an error (the reason), never a value.
- :class:`EquivalenceJudge` decides whether ``inputs["hypothesis_a"]`` and ``inputs["hypothesis_b"]``
  (or ``outputs``) describe the same mechanism, with the ``llm`` rule (rubric ``full`` / ``stepwise`` /
  ``component`` / ``none``) or the ``tfidf`` / ``embedding`` rules; the value is ``same`` or
  ``different``.

MLflow logs each feedback as an assessment on the row's trace beside the row's expectations; MLflow
has no judge-vs-human agreement of its own, so :func:`log_agreement` adds it to the evaluation run.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any, Literal

from pydantic import PrivateAttr

from tribunal.core.mt_judgment import MTJudgment
from tribunal.quiet import leaves_filters_as_found

with warnings.catch_warnings():  # MLflow, numpy, pandas and scipy add filters on import: not to the caller's process
    from mlflow.entities import Feedback
    from mlflow.genai.scorers import Scorer
    import mlflow

    from tribunal.core.hypothesis import Hypothesis
    from tribunal.eval.meta.judge_human import MQM_BANDS, mqm_band
    from tribunal.eval.tracking.assessments import LabelledVerdict, categorical_agreement, log_agreement as log_to_run
    from tribunal.eval.tracking.mlflow_run import Run
    from tribunal.programs.lm import LMSettings, build_lm
    from tribunal.core.judges import JUDGES, MTJudgeName
    from tribunal.service.judging import JobRequest, NoSettings, configure, judge_factory
    from tribunal.core.setting_assignments import judge_values
    from tribunal.errors import UserError


class _Text:
    """Free text standing in for a structured hypothesis (rules compare ``render()``)."""

    def __init__(self, text: str):
        self.text = text

    def render(self) -> str:
        return self.text


def _lm(model: str, api_base: str | None, api_key_env: str | None, cache: bool = True) -> Any:
    return build_lm(LMSettings(model=model, api_base=api_base, api_key_env=api_key_env, cache=cache))


class _LibraryScorer(Scorer):
    """A scorer whose calls leave the caller's warnings filters as they found them: MLflow's telemetry
    around ``__call__`` imports LiteLLM on the first call, and the judge imports what it runs on, each
    adding filters of its own (:func:`tribunal.quiet.filters_as_found`)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)  # MLflow wraps the class's own __call__ with its telemetry first
        if "__call__" in cls.__dict__:
            cls.__call__ = leaves_filters_as_found(cls.__dict__["__call__"])


class MQMJudge(_LibraryScorer):
    """An MT judge as a scorer: feedback = the item's score (see the module docstring).

    ``lp`` (e.g. ``zh-en``) picks the few-shot demos as ``mt evaluate --lp`` does; without it the pair
    comes from the row's ``source_lang`` / ``target_lang`` (``Chinese`` -> ``zh``). ``demos`` is
    ``--demos`` (default: the program's), ``demo_data`` the TED MQM folder (default
    ``$TRIBUNAL_DATA/mqm-ted``).
    """

    name: str = ""
    program: MTJudgeName = JUDGES.default("mt")
    program_file: str | None = None
    lm: str
    api_base: str | None = None
    api_key_env: str | None = None
    cache: bool = True
    settings: dict[str, Any] = {}
    """The program's own settings (fields of its registry entry's settings model, e.g. ``{"rounds": 2}``, as
    ``mt evaluate -S rounds=2``), validated by that model; with ``program_file`` they override the export's."""
    lp: str | None = None
    demos: int | None = None
    demo_data: str | None = None
    _built: Any = PrivateAttr(default_factory=dict)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        if not self.name:
            self.name = f"{self.program.replace('-', '_')}_mqm"

    def evaluate_config(self, lp: str) -> Any:
        """The ``mt evaluate`` configuration this scorer judges with, for pair ``lp`` (from the judging service)."""
        settings = dict(self.settings)
        if settings and self.program_file is None:  # the names checked against the program's settings model
            settings = judge_values(JUDGES.get(self.program), settings, "settings")
        lm = LMSettings(model=self.lm, api_base=self.api_base, api_key_env=self.api_key_env, cache=self.cache)
        # A program named here as well as an export must be the export's.
        program = self.program if self.program_file is None or "program" in self.model_fields_set else None
        try:
            return configure(JobRequest(given={"lp": lp, "program": program, "program_file": self.program_file,
                                               "lm": lm, "demos": self.demos, "demo_data": self.demo_data,
                                               "concurrency": 1}, settings=settings))
        except NoSettings as err:
            raise UserError(f"settings {settings}: program {err.program} takes no settings") from None

    def _judge(self, lp: str) -> Any:
        with self._lock:
            if lp not in self._built:
                self._built[lp] = judge_factory(self.evaluate_config(lp))()
            return self._built[lp]

    def _predict(self, lp: str, source: str, translation: str, languages: dict[str, str]) -> Any:
        """The judge's prediction for one row; a judge of a source's candidates together (``together``) is
        given the row's translation as a group of one, and its one judgment is the row's."""
        judge = self._judge(lp)
        if JUDGES.get(self.program).together:
            return judge(source=source, candidates=[translation], **languages).judgments[0]
        return judge(source=source, translation=translation, **languages)

    def __call__(self, *, inputs: dict[str, Any] | None = None, outputs: Any = None,
                 expectations: dict[str, Any] | None = None) -> Feedback:
        from tribunal.eval.mt.judging import unscored_reason  # heavy: pulls in dspy
        from tribunal.runner.meter import UsageMeter, metering  # heavy: pulls in dspy

        inputs = dict(inputs or {})
        translation = outputs if isinstance(outputs, str) else inputs.get("translation")
        if not translation or not inputs.get("source"):
            return Feedback(name=self.name, error="the row needs inputs.source and a translation (outputs)")
        lp = self.lp or _pair(inputs.get("source_lang", ""), inputs.get("target_lang", ""))
        if lp is None:
            return Feedback(name=self.name, error="set MQMJudge(lp=...) or give inputs.source_lang and target_lang "
                                                  "(e.g. Chinese, English)")
        languages = _languages(lp) | {k: inputs[k] for k in ("source_lang", "target_lang") if inputs.get(k)}
        meter = UsageMeter()
        try:
            with metering(meter):
                judgment = MTJudgment.of(self._predict(lp, inputs["source"], translation, languages))
        except Exception as exc:  # unscored, with its reason; an unknown exception is a bug
            reason = unscored_reason(exc)
            if reason is None:
                raise
            return Feedback(name=self.name, error=f"unscored: {reason}: {str(exc)[:200]}")
        errors = [e.model_dump(mode="json") for e in judgment.errors]
        rationale = "; ".join(f"{e.get('severity')} {e.get('category', e.get('dimension', ''))}: {e.get('span', '')!r}"
                              for e in errors) or "no errors"
        calls = sum(v for k, v in meter.summary()["calls"].items() if "/" not in k)
        return Feedback(name=self.name, value=judgment.score, rationale=rationale,
                        metadata={"lm_calls": str(calls), "errors": str(len(errors))})


def _languages(lp: str) -> dict[str, str]:
    from tribunal.programs.mqm.demos import LANGUAGES  # heavy: pulls in dspy

    src, _, tgt = lp.partition("-")
    return {"source_lang": LANGUAGES.get(src, src), "target_lang": LANGUAGES.get(tgt, tgt)}


def _pair(source_lang: str, target_lang: str) -> str | None:
    """``"Chinese", "English"`` -> ``"zh-en"`` (None for a language tribunal does not know by name)."""
    from tribunal.programs.mqm.demos import LANGUAGES  # heavy: pulls in dspy

    codes = {name.lower(): code for code, name in LANGUAGES.items()}
    src, tgt = codes.get(source_lang.strip().lower()), codes.get(target_lang.strip().lower())
    return f"{src}-{tgt}" if src and tgt else None


class EquivalenceJudge(_LibraryScorer):
    """An equivalence rule as a scorer: feedback ``same`` / ``different`` (see the module docstring)."""

    name: str = ""
    rule: Literal["llm", "tfidf", "embedding"] = "llm"
    rubric: Literal["full", "stepwise", "component", "none"] = "full"
    lm: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    cache: bool = True
    _built: Any = PrivateAttr(default=None)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        if not self.name:
            self.name = f"equivalence_{self.rule}" + (f"_{self.rubric}" if self.rule == "llm" else "")

    def _rule(self) -> Any:
        with self._lock:
            if self._built is None:
                from tribunal.eval.equiv.rules.registry import RuleOptions, build_rule  # heavy: pulls in sklearn

                lm = _lm(self.lm, self.api_base, self.api_key_env, self.cache) if self.rule == "llm" and self.lm else None
                self._built = build_rule(self.rule, RuleOptions(rubric=self.rubric, lm=lm, lm_name=self.lm, threads=1))
            return self._built

    def __call__(self, *, inputs: dict[str, Any] | None = None, outputs: Any = None,
                 expectations: dict[str, Any] | None = None) -> Feedback:
        inputs = dict(inputs or {})
        first = inputs.get("hypothesis_a")
        second = inputs.get("hypothesis_b", outputs)
        if not first or not second:
            return Feedback(name=self.name, error="the row needs inputs.hypothesis_a and hypothesis_b (or outputs)")
        (judgment,) = self._rule().judge_pairs([(_hypothesis(first), _hypothesis(second))])
        if judgment.same is None:
            return Feedback(name=self.name, error=f"unscored: {judgment.reason}")
        votes = ", ".join(f"{v.order}={'same' if v.same else 'different' if v.same is not None else 'unscored'}"
                          for v in judgment.votes)
        return Feedback(name=self.name, value="same" if judgment.same else "different",
                        rationale=f"votes: {votes}" if votes else None,
                        metadata={"score": str(judgment.score), "calls": str(judgment.calls)})


def _hypothesis(value: Any) -> Any:
    if isinstance(value, dict):
        return Hypothesis.model_validate(value)
    return _Text(str(value))


def log_agreement(result: Any, judge: str, human: str, kind: Literal["mqm", "verdict"] = "mqm") -> Any:
    """Judge-vs-human agreement of an evaluation result, logged to its run: kappa, accuracy, Pearson
    (``mqm``), confusion matrix table and plot. ``judge`` / ``human``: the feedback and expectation names."""
    frame = result.result_df
    judged = [None if _missing(v) else v for v in frame.get(f"{judge}/value", [])]
    labels = [None if _missing(v) else v for v in frame.get(f"{human}/value", [])]
    verdicts = [LabelledVerdict(None, h, j) for j, h in zip(judged, labels)]
    if kind == "mqm":
        agreement = categorical_agreement(verdicts, MQM_BANDS, mqm_band, scores=True)
    else:
        agreement = categorical_agreement(verdicts, ("same", "different"))
    run = mlflow.get_run(result.run_id)
    log_to_run(Run(mlflow.MlflowClient(), result.run_id, run.info.experiment_id), agreement,
               f"{judge} vs {human}", prefix=f"{judge}.vs_human.")
    return agreement


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)
