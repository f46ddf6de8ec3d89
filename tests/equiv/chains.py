"""Hand-made causal chains for the chain-rule tests: one original and its variants."""

from tribunal.core.hypothesis import Hypothesis, Step


def chain(hid: str, *steps: str) -> Hypothesis:
    return Hypothesis(id=hid, statement=f"{steps[0]} leads to {steps[-1]}.", explanation="As described by the chain.",
                      steps=tuple(Step(entity=s, text=s) for s in steps), relations=("causes",) * (len(steps) - 1))


ORIGINAL = chain("orig", "excess dietary salt", "fluid retention by the kidneys", "expanded blood volume",
                 "high blood pressure")
VARIANTS = {
    # kind: (hypothesis, expected "same"?, the step of the original that should be named as the weakest)
    "reworded": (chain("reworded", "too much salt in the diet", "renal fluid retention",
                       "increased blood volume", "elevated blood pressure"), True, None),
    "swap-start": (chain("swap-start", "a tumour of the adrenal gland", "fluid retention by the kidneys",
                         "expanded blood volume", "high blood pressure"), False, 0),
    "swap-middle": (chain("swap-middle", "excess dietary salt", "stiffening of the arteries",
                          "expanded blood volume", "high blood pressure"), False, 1),
    "reordered": (chain("reordered", "excess dietary salt", "expanded blood volume",
                        "fluid retention by the kidneys", "high blood pressure"), False, 1),
    "extra-step": (chain("extra-step", "excess dietary salt", "fluid retention by the kidneys",
                         "expanded blood volume", "more blood pumped per heartbeat", "high blood pressure"), False, None),
}
