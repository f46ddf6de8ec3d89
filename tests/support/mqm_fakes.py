"""A scripted offline LM for the MQM judge signatures, usable in-process or behind the loopback server.

Requests are routed by the signature's instruction (its docstring's first line, which DSPy's chat
adapter puts in the system message); the inputs are read back from the ``[[ ## field ## ]]``
sections of the last user message, and answers are written in the chat adapter's format.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from typing import Any, Callable

from tribunal.signatures.mqm.error_free import ErrorFree
from tribunal.signatures.mqm.coupled import CoupledAssessment
from tribunal.signatures.mqm.consensus import ConsensusCheck
from tribunal.signatures.mqm.debate_verdict import DebateVerdict
from tribunal.signatures.mqm.debater import DebateTurn
from tribunal.signatures.mqm.dimensions import ASSESSORS
from tribunal.signatures.mqm.eaprompt import ErrorAnalysis
from tribunal.signatures.mqm.esa_score import DirectScore, ESAScore
from tribunal.signatures.mqm.esa_spans import ESASpans
from tribunal.signatures.mqm.final_judge import FinalJudgment
from tribunal.signatures.mqm.gemba import GembaMQM
from tribunal.signatures.mqm.joint import JointMQM
from tribunal.signatures.mqm.guided_dimensions import GUIDED_ASSESSORS, GuidedCoupledAssessment
from tribunal.signatures.mqm.merging_judge import MergingJudgment
from tribunal.signatures.mqm.pairwise_quality import PairwiseQuality
from tribunal.signatures.mqm.post_edit import PostEdit
from tribunal.signatures.mqm.reexamination import REEXAMINATIONS
from tribunal.signatures.mqm.reviewer import ReviewTurn

SIGNATURES = {cls.__name__: cls for cls in [*ASSESSORS.values(), CoupledAssessment, ConsensusCheck, DebateVerdict,
                                            DebateTurn, ErrorAnalysis, FinalJudgment, GembaMQM, ReviewTurn,
                                            *GUIDED_ASSESSORS.values(), GuidedCoupledAssessment, MergingJudgment,
                                            *REEXAMINATIONS.values(),
                                            ESASpans, ESAScore, DirectScore, PostEdit, PairwiseQuality, ErrorFree,
                                            JointMQM]}
_FIRST_LINES = {name: cls.instructions.strip().split("\n")[0].strip() for name, cls in SIGNATURES.items()}
_SECTION = re.compile(r"\[\[ ## (\w+) ## \]\]\n")
_OBJECTIVE = "your objective is:"
# The paper preset's signatures answer like their lean counterparts, so both presets see the same outcomes.
LEAN_NAME = {GUIDED_ASSESSORS[d].__name__: ASSESSORS[d].__name__ for d in ASSESSORS} | {
    GuidedCoupledAssessment.__name__: CoupledAssessment.__name__}
DIMENSION_OF = {cls.__name__: d for d, cls in REEXAMINATIONS.items()}

Responder = Callable[[str, dict[str, Any]], "dict[str, Any] | str"]


def identify(system_text: str) -> str:
    """The name of the signature whose instruction is in ``system_text``.

    With DSPy's chat adapter the instruction follows "your objective is:"; it must start with the first line.
    """
    if _OBJECTIVE in system_text:
        objective = system_text.split(_OBJECTIVE, 1)[1].lstrip()
        found = [name for name, line in _FIRST_LINES.items() if objective.startswith(line)]
    else:
        found = [name for name, line in _FIRST_LINES.items() if line in system_text]
    if len(found) != 1:
        raise LookupError(f"cannot tell the signature from the system message (matches: {found})")
    return found[0]


def task_message(user_messages: list[str]) -> str:
    """The last user message that states the task: a re-ask's feedback (tribunal's own turn) is not one."""
    from tribunal.programs.answers.reask import FEEDBACK_OPENING

    return [text for text in user_messages if not text.startswith(FEEDBACK_OPENING)][-1]


def parse_fields(text: str) -> dict[str, Any]:
    """``[[ ## name ## ]]`` sections of a message, JSON-decoded where possible."""
    parts = _SECTION.split(text)
    fields: dict[str, Any] = {}
    for name, value in zip(parts[1::2], parts[2::2]):
        value = value.strip()
        if value.startswith("Respond with") or name == "completed":
            continue
        value = value.split("\n\nRespond with")[0].strip()
        try:
            fields[name] = json.loads(value)
        except json.JSONDecodeError:
            fields[name] = value
    return fields


def chat_answer(outputs: dict[str, Any]) -> str:
    """Outputs in DSPy's chat-adapter format."""
    body = "".join(f"[[ ## {k} ## ]]\n{v if isinstance(v, str) else json.dumps(v)}\n\n" for k, v in outputs.items())
    return body + "[[ ## completed ## ]]"


Renderer = Callable[[str, dict[str, Any], dict[str, Any]], str]


def answer(system_text: str, user_text: str, responder: Responder,
           render: Renderer | None = None) -> tuple[str, str, dict[str, Any]]:
    """``(signature name, answer text, inputs)`` for one request.

    ``render(name, inputs, outputs)`` writes the answer text (default: the clean chat layout).
    """
    name = identify(system_text)
    inputs = parse_fields(user_text)
    outputs = responder(name, inputs)
    if isinstance(outputs, str):
        return name, outputs, inputs
    return name, render(name, inputs, outputs) if render else chat_answer(outputs), inputs


class ScriptedEngine:
    """A DSPy engine (``complete(Request) -> Response``) answering from a responder; records every call."""

    def __init__(self, responder: Responder):
        self.responder = responder
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def complete(self, request):
        from dspy.lm15 import Message, Response, TextPart, Usage

        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system or [])
        user = task_message([m.text or "" for m in request.messages if m.role == "user"])
        name, text, inputs = answer(system, user, self.responder)
        with self._lock:
            self.calls.append((name, inputs))
        return Response(id=None, model="scripted", message=Message.assistant([TextPart(text)]), finish_reason="stop",
                        usage=Usage(input_tokens=len(system + user) // 4, output_tokens=len(text) // 4,
                                    total_tokens=(len(system + user) + len(text)) // 4))

    def stream(self, request):
        raise NotImplementedError("the scripted engine does not stream")

    def close(self) -> None:
        pass

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


def _h(*parts: object) -> int:
    return int(hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()[:8], 16)


SUBCATEGORY = {"AccuracyAssessment": "mistranslation", "FluencyAssessment": "grammar",
               "StyleAssessment": "awkward", "TerminologyAssessment": "inappropriate for context"}
ERROR_RATE = {"AccuracyAssessment": 45, "FluencyAssessment": 30, "StyleAssessment": 35, "TerminologyAssessment": 15}


def _flip(errors: list) -> list:
    return [dict(e, severity="minor" if e["severity"] == "major" else "major") for e in errors]


def _reexamine(dimension: str, translation: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """A published-protocol debater, converging in the round the lean debate would reach consensus.

    Lean: consensus in round r when ``h_r = hash("agree", translation, dimension, r) % 100 < 60``, on the
    stage-1 side except when the defender concedes (r >= 2, ``h_r < 30``). Here both agents give the same
    annotations in that round (so the consensus check says yes), else A1 the stage-1 ones, A2 their flip.
    """
    debate = str(inputs.get("debate", ""))
    round_ = debate.count("] you:")  # round 0 is the opening
    defender = debate.startswith("[round 0] you:")  # A1's opening comes first in the transcript
    lean = ASSESSORS[dimension].__name__
    assessment = synthetic_judge(lean, {"translation": translation})["errors"]
    h = _h("agree", translation, dimension, round_) % 100
    if h < 60:
        settled = _flip(assessment) if round_ >= 2 and h < 30 else assessment
        return {"analysis": f"converged in round {round_}", "errors": settled}
    return {"analysis": f"round {round_}", "errors": assessment if defender else _flip(assessment)}


def synthetic_judge(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """A deterministic stand-in for a real judge: outcomes depend only on a hash of the inputs.

    Stage-1 agents find one error (the translation's longest word) at fixed rates per dimension;
    the opposer concedes in round 1 with probability 0.6, the defender in later rounds with 0.3.
    The paper preset's agents answer like their lean counterparts (:data:`LEAN_NAME`, :func:`_reexamine`).
    """
    translation = str(inputs.get("translation", ""))
    word = max(translation.split() or ["?"], key=len)
    if name in LEAN_NAME:
        answer = synthetic_judge(LEAN_NAME[name], inputs)
        return {"errors": answer["errors"]}
    if name in DIMENSION_OF:
        return _reexamine(DIMENSION_OF[name], translation, inputs)
    if name == "MergingJudgment":
        return {"analysis": "synthetic", "errors": [e for d in ("accuracy", "fluency", "terminology", "style")
                                                    for e in inputs.get(f"{d}_annotations") or []]}
    if name in ERROR_RATE:
        hit = _h(name, translation) % 100 < ERROR_RATE[name]
        severity = "major" if _h("sev", name, translation) % 3 == 0 else "minor"
        errors = [{"span": word, "subcategory": SUBCATEGORY[name], "severity": severity, "is_source_error": False}]
        return {"rationale": "synthetic", "errors": errors if hit else []}
    if name == "DebateTurn":
        debate, stance = str(inputs.get("debate", "")), inputs.get("stance")
        round_ = debate.count("opposer:") + 1 if stance == "oppose" else debate.count("defender:") + 1
        agrees = (_h("agree", translation, inputs.get("dimension"), round_) % 100) < (60 if stance == "oppose" else 30)
        position = inputs.get("assessment") or []
        if stance == "oppose" and not agrees:
            position = [dict(e, severity="minor" if e["severity"] == "major" else "major") for e in position]
        return {"argument": f"{stance} round {round_}", "position": position, "agrees": bool(agrees and round_ > 0)}
    if name == "ConsensusCheck":
        return {"consensus": inputs.get("first_annotations") == inputs.get("second_annotations")}
    if name in ("DebateVerdict",):
        return {"errors": inputs.get("assessment") or []}
    if name == "ReviewTurn":
        decided = bool(inputs.get("final_round")) or _h("r", translation, inputs.get("dimension")) % 2 == 0
        return {"questions": "" if decided else "why?", "decided": decided, "errors": inputs.get("assessment") or []}
    if name == "FinalJudgment":
        return {"errors": inputs.get("verdicts") or []}
    if name == "CoupledAssessment":
        hit = _h(name, translation) % 100 < 60
        return {"rationale": "", "errors": [{"span": word, "dimension": "accuracy", "subcategory": "mistranslation",
                                              "severity": "minor", "is_source_error": False}] if hit else []}
    if name == "GembaMQM":
        hit = _h(name, translation) % 100 < 60
        return {"errors": [{"span": word, "category": "accuracy", "subcategory": "mistranslation",
                            "severity": "major", "is_source_error": False}] if hit else []}
    if name == "JointMQM":  # each candidate as GembaMQM would annotate it alone
        return {"judgments": [{"candidate": c["label"], **synthetic_judge("GembaMQM", {"translation": c["translation"]})}
                              for c in inputs["candidates"]]}
    if name == "ErrorAnalysis":
        return {"analysis": "synthetic", "major_errors": _h("M", translation) % 2, "minor_errors": _h("m", translation) % 3}
    return _esa_ape_judge(name, inputs, translation, word)


def _esa_ape_judge(name: str, inputs: dict[str, Any], translation: str, word: str) -> dict[str, Any]:
    """GEMBA-ESA and MQM-APE: spans at a fixed rate, scores from them, post-edits kept 70% of the time."""
    if name == "ESASpans":
        hit = _h(name, translation) % 100 < 55
        severity = "major" if _h("sev", name, translation) % 3 == 0 else "minor"
        return {"errors": [{"span": word, "category": "accuracy", "subcategory": "mistranslation",
                            "severity": severity, "is_source_error": False}] if hit else []}
    if name == "ESAScore":
        penalty = sum(25 if e.get("severity") == "major" else 5 for e in inputs.get("errors") or [])
        return {"score": max(0, 100 - penalty - _h("esa", translation) % 5)}
    if name == "DirectScore":
        return {"score": 60 + _h("da", translation) % 41}
    if name == "PostEdit":
        span = str((inputs.get("error") or {}).get("span", ""))
        edited = translation.replace(span, "[fixed]", 1) if span and span in translation else translation + " [fixed]"
        return {"post_edit": edited}
    if name == "PairwiseQuality":
        return {"better": "B" if _h("pair", inputs.get("translation_b")) % 100 < 70 else "A"}
    if name == "ErrorFree":
        return {"error_free": _h(name, translation) % 100 < 40}
    raise LookupError(name)
