"""An MT judging task where demos truly matter, over the real TED MQM annotations.

The scripted task LM answers like the human annotator (the TED errors of that translation, in the
asking signature's schema) only when the prompt carries few-shot demos; without demos it is the
hash-driven :func:`tests.support.mqm_fakes.synthetic_judge`. So "tuned beats untuned on dev" can
only pass if an optimizer really put usable demos into the predictors that annotate. The oracle
writes its answers from the TED rows itself (not through ``programs/mqm/labels.py``), so a wrong
label conversion is not hidden by the same conversion on both sides.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any, get_args

from tests.support.mqm_fakes import ScriptedEngine, synthetic_judge
from tribunal.signatures.mqm.dimensions import ASSESSORS
from tribunal.signatures.mqm.guided_dimensions import GUIDED_ASSESSORS

AGENTS = {cls.__name__: cls for cls in [*ASSESSORS.values(), *GUIDED_ASSESSORS.values()]}  # lean, paper preset
DIMENSION_OF = {cls.__name__: dimension for agents in (ASSESSORS, GUIDED_ASSESSORS)
                for dimension, cls in agents.items()}
LP = "en-de"


@lru_cache(maxsize=None)
def human_scores() -> dict[str, float]:
    """``{translation: the human MQM score}`` (the first rater's, as :func:`human_errors`)."""
    from tribunal.optimizers.training_data import load_training_data

    table: dict[str, float] = {}
    for example in load_training_data(f"mqm-ted:{LP}").examples:
        table.setdefault(example.translation, example.gold_score)
    return table


@lru_cache(maxsize=None)
def human_errors() -> dict[str, list[dict[str, Any]]]:
    """``{translation: [{span, dimension, subcategory, severity, is_source_error}]}`` from TED en-de."""
    from tribunal.optimizers.training_data import load_training_data

    table: dict[str, list[dict[str, Any]]] = {}
    for example in load_training_data(f"mqm-ted:{LP}").examples:
        errors = []
        for gold in example.gold_errors:
            if gold["start"] is None or gold["severity"] not in ("minor", "major"):
                continue
            text = example.source if gold["is_source_error"] else example.translation
            dimension, _, sub = gold["category"].lower().partition("/")
            errors.append({"span": text[gold["start"]:gold["end"]], "dimension": dimension, "subcategory": sub,
                           "severity": gold["severity"], "is_source_error": gold["is_source_error"]})
        table.setdefault(example.translation, errors)
    return table


def _allowed(signature: str) -> set[str]:
    model = AGENTS[signature].output_fields["errors"].annotation.__args__[0]
    return set(get_args(model.model_fields["subcategory"].annotation))


def annotator(name: str, inputs: dict[str, Any]) -> dict[str, Any] | None:
    """The human annotation in the schema of signature ``name``; None where it has no human answer."""
    if name == "JointMQM":  # each candidate as GembaMQM's human answer; None if one has no human annotation
        answers = [annotator("GembaMQM", {"translation": c["translation"]}) for c in inputs["candidates"]]
        if any(a is None for a in answers):
            return None
        return {"judgments": [{"candidate": c["label"], **a} for c, a in zip(inputs["candidates"], answers)]}
    errors = human_errors().get(str(inputs.get("translation", "")))
    if errors is None:
        return None
    if name in ("GembaMQM", "ESASpans"):  # MQM-APE's evaluator asks GEMBA-MQM's question
        known = ("accuracy", "fluency", "style", "terminology")
        return {"errors": [{"span": e["span"], "category": e["dimension"] if e["dimension"] in known else "other",
                            "subcategory": e["subcategory"], "severity": e["severity"],
                            "is_source_error": e["is_source_error"]} for e in errors]}
    if name in ("ESAScore", "DirectScore"):  # the human MQM score on ESA's scale: 0 -> 100, -25 -> 0
        return {"score": max(0.0, 100.0 + 4.0 * human_scores()[str(inputs["translation"])])}
    if name in DIMENSION_OF:
        allowed = _allowed(name)
        mine = [{k: e[k] for k in ("span", "subcategory", "severity", "is_source_error")} for e in errors
                if e["dimension"] == DIMENSION_OF[name] and e["subcategory"] in allowed]
        return {"rationale": "as annotated", "errors": mine} if "rationale" in AGENTS[name].output_fields \
            else {"errors": mine}
    if name == "ErrorFree":
        return {"error_free": not errors}
    if name == "ErrorAnalysis":
        major = sum(e["severity"] == "major" for e in errors)
        return {"analysis": "as annotated", "major_errors": major, "minor_errors": len(errors) - major}
    return None


class DemoGatedEngine(ScriptedEngine):
    """The human annotator when the request carries demos, the synthetic judge otherwise."""

    def __init__(self) -> None:
        self._local = threading.local()
        self.with_demos = 0
        super().__init__(self._respond)

    def complete(self, request):
        # DSPy's chat adapter sends each demo as a user/assistant pair before the real question.
        self._local.demos = len(request.messages) > 1
        return super().complete(request)

    def _respond(self, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        if self._local.demos:
            answer = annotator(name, inputs)
            if answer is not None:
                with self._lock:
                    self.with_demos += 1
                return answer
        return synthetic_judge(name, inputs)


def engine(role: str, model: str) -> DemoGatedEngine:
    """Factory for the ``lm_roles.test_engine_factory`` hook of ``tribunal optimize``."""
    return DemoGatedEngine()


def labeled_optimize(tmp_path, monkeypatch, program: str, train: str, dev: str, budget: int, objective: str):
    """``tribunal optimize --optimizer labeled`` on this task's scripted LM, in ``tmp_path``: ``(CLI result,
    the export read back)``; the run must exit 0."""
    from typer.testing import CliRunner

    from tests.support.injected_engine import use_engine
    from tribunal.cli import app
    from tribunal.data.program_export import read_export

    monkeypatch.chdir(tmp_path)
    use_engine(monkeypatch, "tests.optimizers.mqm_task:engine")
    out = tmp_path / f"{program}.json"
    result = CliRunner().invoke(app, [
        "optimize", "--program", program, "--optimizer", "labeled", "--budget", str(budget), "--train", train,
        "--dev", dev, "--lm", "openai/judge", "--threads", "2", "--objective", objective,
        "--out", str(out), "--no-track"])
    assert result.exit_code == 0, (result.output, result.exception)
    return result, read_export(out)
