"""A toy equivalence task where tuning truly matters, and a scripted LM (a DSPy 3.4 engine) for it.

Items compare two causal chains ``E1 -> E2 -> E3``; a chain reworded with aliases (lower case)
is the same mechanism, a swapped step is not. The scripted task LM knows that rule only when
the prompt carries what tuning adds:
- *demos* (any few-shot demo in the conversation) -- what LabeledFewShot / Bootstrap* add;
- the phrase :data:`KEY_PHRASE` in the instructions -- what the scripted prompt/reflection LM
  proposes to MIPROv2 (``proposed_instruction``), SIMBA (``module_advice``) and GEPA
  (``new_instruction``).
Without it the LM always answers "same": right on exactly half of the balanced items. Sampled
calls (temperature >= 1, as SIMBA's and the bootstrap's resampling use) answer at random so a
trajectory search sees variance. Every other signature the optimizers use internally gets
well-formed filler, in the ChatAdapter or the JSONAdapter format the request asks for.
"""

from __future__ import annotations

import json
import random
import re
import threading
from typing import Callable, Literal

import dspy
from dspy.lm15 import Message, Response, TextPart, Usage

KEY_PHRASE = "Compare the chains entity by entity; aliases in lower case name the same entity."
KINDS = ("wording-only", "wording-chain", "first-step-swapped", "middle-step-swapped")


class ToyVerdict(dspy.Signature):
    """Decide whether the two hypotheses describe the same mechanism."""

    hypothesis_a: str = dspy.InputField()
    hypothesis_b: str = dspy.InputField()
    verdict: Literal["same", "different"] = dspy.OutputField()


class ToyJudge(dspy.Module):
    judge_kind = "equiv"

    def __init__(self):
        super().__init__()
        self.judge = dspy.Predict(ToyVerdict)

    def forward(self, hypothesis_a: str, hypothesis_b: str):
        return self.judge(hypothesis_a=hypothesis_a, hypothesis_b=hypothesis_b)


def toy_rule(a: str, b: str) -> str:
    """The toy items' truth: the same chain up to letter case."""
    return "same" if a.lower() == b.lower() else "different"


def suite_oracle() -> Callable[[str, str], str]:
    """The shipped perturbation suite's labels (either presentation order), else :func:`toy_rule`."""
    from tribunal.eval.equiv.suite import load_suite

    labels = {}
    for pair in load_suite().pairs:
        verdict = "same" if pair.expected_same else "different"
        a, b = pair.original.render(), pair.perturbed.render()
        labels[a, b] = labels[b, a] = verdict
    return lambda a, b: labels.get((a, b)) or toy_rule(a, b)


def _chain(steps: list[str]) -> str:
    return "chain: " + " -> ".join(steps)


def toy_examples(count: int, offset: int = 0) -> list[dspy.Example]:
    """Balanced items (kinds in rotation); ``offset`` keeps train and dev disjoint."""
    examples = []
    for i in range(offset, offset + count):
        steps = [f"E{i}a", f"E{i}b", f"E{i}c"]
        kind = KINDS[i % 4]
        other = {
            "wording-only": steps,
            "wording-chain": [s.lower() for s in steps],
            "first-step-swapped": [f"F{i}x", *steps[1:]],
            "middle-step-swapped": [steps[0], f"F{i}y", steps[2]],
        }[kind]
        examples.append(dspy.Example(hypothesis_a=_chain(steps), hypothesis_b=_chain(other), kind=kind,
                                     verdict="same" if kind.startswith("wording") else "different")
                        .with_inputs("hypothesis_a", "hypothesis_b"))
    return examples


def _field(user: str, name: str) -> str | None:
    match = re.search(rf"\[\[ ## {re.escape(name)} ## \]\]\n(.*?)(?=\n\n|\Z)", user, re.S)
    return match.group(1).strip() if match else None


def _output_fields(system: str) -> list[tuple[str, str]]:
    block = system.split("Your output fields are:", 1)[-1].split("All interactions will be structured", 1)[0]
    return re.findall(r"^\d+\. `(\w+)` \(([^)]*\)?)\)", block, re.M)


def _filler(name: str, type_: str, user: str) -> object:
    if name in ("proposed_instruction", "new_instruction", "improved_instruction", "shortened_instruction"):
        return f"Decide whether two hypotheses describe the same mechanism. {KEY_PHRASE}"
    if name == "module_advice":
        names = json.loads(_field(user, "module_names") or "[]")
        return {module: f"If the chains differ only in letter case, answer same. {KEY_PHRASE}" for module in names}
    if type_.startswith("Literal"):
        return re.findall(r"'([^']*)'", type_)[0]
    if type_ == "bool":
        return True
    if type_ in ("int", "float"):
        return 1
    if type_.startswith(("list", "dict")):
        return [] if type_.startswith("list") else {}
    return f"A short, well-formed {name.replace('_', ' ')}."


class ToyEngine:
    """``complete(Request) -> Response``; counts calls per kind (task / internal)."""

    def __init__(self, unlock_by_demos: bool = True, unlock_by_phrase: bool = True, seed: int = 0,
                 oracle: Callable[[str, str], str] | None = None):
        self.unlock_by_demos, self.unlock_by_phrase = unlock_by_demos, unlock_by_phrase
        self.oracle = oracle or toy_rule
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.calls = {"task": 0, "internal": 0}

    def _verdict(self, system: str, messages: list, user: str, temperature: float | None) -> str:
        unlocked = (self.unlock_by_demos and len(messages) > 1) or (self.unlock_by_phrase and KEY_PHRASE in system)
        a, b = _field(user, "hypothesis_a") or "", _field(user, "hypothesis_b") or ""
        if unlocked:
            return self.oracle(a, b)
        if temperature is not None and temperature >= 1.0:
            with self.lock:
                return self.rng.choice(["same", "different"])
        return "same"

    def complete(self, request):
        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system or ())
        user = request.messages[-1].text or ""
        fields = _output_fields(system)
        names = [name for name, _ in fields]
        if "verdict" in names and "hypothesis_a" in system:
            kind = "task"
            values = {"verdict": self._verdict(system, request.messages, user, request.config.temperature)}
        else:
            kind = "internal"
            values = {name: _filler(name, type_, user) for name, type_ in fields}
        with self.lock:
            self.calls[kind] += 1
        if "Outputs will be a JSON object" in system:
            text = json.dumps(values)
        else:
            text = "\n\n".join(f"[[ ## {k} ## ]]\n{v if isinstance(v, str) else json.dumps(v)}"
                               for k, v in values.items()) + "\n\n[[ ## completed ## ]]"
        return Response(id=None, model="toy", message=Message.assistant([TextPart(text)]), finish_reason="stop",
                        usage=Usage(input_tokens=1, output_tokens=1, total_tokens=2))

    def stream(self, request):
        raise NotImplementedError

    def close(self):
        pass


def toy_lm(engine: ToyEngine, model: str = "toy/task") -> dspy.LM:
    """A ``dspy.LM`` on the toy engine with every cache off."""
    return dspy.LM(model, engine=engine, cache=False, temperature=0.0, num_retries=0)


def engine(role: str, model: str) -> ToyEngine:
    """Factory for the ``lm_roles.test_engine_factory`` hook of ``tribunal optimize`` (``role``: task/teacher/prompt).

    Knows the shipped suite's labels, so the command can be driven on ``suite:`` data.
    """
    return ToyEngine(oracle=suite_oracle())
