"""A scripted MT judge family where the item metric and a corpus statistic prefer different candidates.

Segments of four translations with human MQM scores ``[0, -1, -4, -6]`` (shifted per segment).
The scripted task LM scores a translation in one of two modes, chosen by the prompt:

- **A** (close, noisily ranked): ``human -/+ 1.2`` alternately down the ranking, so within each
  segment the first two and the last two translations swap places. Item metric 0.952 a translation,
  segment-level acc_eq 4/6.
- **B** (offset, perfectly ranked): ``human - 8``. Item metric 0.68, acc_eq 1.0.

Mode B is what tuning adds: demos in the conversation (``unlock_by_demos``, for random search and
SIMBA) or :data:`~tests.optimizers.toy_task.KEY_PHRASE` in the instructions (what the scripted
prompt/reflection LM proposes to MIPROv2, SIMBA and GEPA). Untuned, the judge is A. Sampled calls
(temperature >= 1, SIMBA's trajectories) answer in A, B or a far-off score at random, so SIMBA sees
the variance it needs to build candidates. So under
``item`` an optimizer should keep an A candidate and under ``seg-acc-eq`` a B one.
"""

from __future__ import annotations

import json
import random
import threading

import dspy
from dspy.lm15 import Message, Response, TextPart, Usage

from tests.optimizers.toy_task import KEY_PHRASE, _field, _filler, _output_fields

SHAPE = (0.0, -1.0, -4.0, -6.0)
NOISE = (-1.2, 1.2, -1.2, 1.2)
OFFSET = -8.0


class RankScore(dspy.Signature):
    """Score the translation on the MQM scale (0 = no error, -25 = worst)."""

    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    score: float = dspy.OutputField()


class RankJudge(dspy.Module):
    judge_kind = "mt"

    def __init__(self):
        super().__init__()
        self.judge = dspy.Predict(RankScore)

    def forward(self, source: str, translation: str, source_lang: str = "", target_lang: str = ""):
        return self.judge(source=source, translation=translation)


def rank_examples(segments: int, offset: int = 0) -> list[dspy.Example]:
    """``segments`` segments of four translations each (``offset`` keeps train and dev disjoint)."""
    examples = []
    for seg in range(offset, offset + segments):
        for k, shape in enumerate(SHAPE):
            examples.append(dspy.Example(source=f"source {seg}", translation=f"translation {seg}-{k}",
                                         gold_score=shape - (seg % 3), gold_errors=None, seg_id=seg,
                                         system=f"sys{k}", rater="r1").with_inputs("source", "translation"))
    return examples


def mode_a(human: float, rank: int) -> float:
    return human + NOISE[rank]


def mode_b(human: float) -> float:
    return human + OFFSET


class RankEngine:
    """``complete(Request) -> Response`` for the family; every other signature gets filler."""

    def __init__(self, unlock_by_demos: bool = True, unlock_by_phrase: bool = True, silent: frozenset = frozenset()):
        self.unlock_by_demos, self.unlock_by_phrase = unlock_by_demos, unlock_by_phrase
        self.silent = silent  # translations the judge cannot answer (an unusable reply)
        self.rng = random.Random(0)
        self.lock = threading.Lock()
        self.modes = {"A": 0, "B": 0}

    def _score(self, system: str, messages: list, user: str, temperature: float | None) -> str | None:
        translation = _field(user, "translation") or ""
        if translation in self.silent:
            return None
        seg, rank = (int(x) for x in translation.removeprefix("translation ").split("-"))
        human = SHAPE[rank] - (seg % 3)
        b = (self.unlock_by_demos and len(messages) > 1) or (self.unlock_by_phrase and KEY_PHRASE in system)
        if temperature is not None and temperature >= 1.0:
            with self.lock:
                return f"{self.rng.choice([mode_a(human, rank), mode_b(human), human - 15.0]):g}"
        with self.lock:
            self.modes["B" if b else "A"] += 1
        return f"{mode_b(human) if b else mode_a(human, rank):g}"

    def complete(self, request):
        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system or ())
        user = request.messages[-1].text or ""
        fields = _output_fields(system)
        names = [name for name, _ in fields]
        if names == ["score"] and "translation" in system:
            score = self._score(system, request.messages, user, request.config.temperature)
            values = {"score": score if score is not None else "no idea"}
        else:
            values = {name: _filler(name, type_, user) for name, type_ in fields}
        if "Outputs will be a JSON object" in system:
            text = json.dumps(values)
        else:
            text = "\n\n".join(f"[[ ## {k} ## ]]\n{v if isinstance(v, str) else json.dumps(v)}"
                               for k, v in values.items()) + "\n\n[[ ## completed ## ]]"
        return Response(id=None, model="rank", message=Message.assistant([TextPart(text)]), finish_reason="stop",
                        usage=Usage(input_tokens=1, output_tokens=1, total_tokens=2))

    def stream(self, request):
        raise NotImplementedError

    def close(self):
        pass


def rank_lm(engine: RankEngine, model: str = "rank/task") -> dspy.LM:
    return dspy.LM(model, engine=engine, cache=False, temperature=0.0, num_retries=0)
