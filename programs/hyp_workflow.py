"""The proposer / critic / reviser workflow over K critique rounds from one opening hypothesis.

The proposer turns the opening hypothesis into one hypothesis (or a few alternatives): the live
set of this opening's lineage. Each round, every live hypothesis is challenged by the critic
and revised by the author, whose revision (one hypothesis, or alternatives) replaces it; the
live set is capped at ``max_per_opening`` (revisions past the cap are counted, not carried on) by
taking each live hypothesis's first revision, then each one's second, and so on
(:func:`fair_share`): every line of the lineage keeps a descendant, and no hypothesis's
alternatives crowd out the others'.
K = 0 delivers the proposals. Every challenge is recorded with the reply for the post-hoc
engagement judge; the workflow itself judges nothing. ``max_per_opening=1`` is the single-line
workflow tribunal ran before lineages (one hypothesis per opening).

A critic or reviser that stays unusable after its re-asks falls back to what the workflow itself
defines for a round with no revision (:data:`FALLBACK`): the hypothesis goes on as it was (its previous
revision), the lineage keeps every call already paid for, and the output lists the fallback in
``degraded``; ``strict`` unscores the lineage instead. The proposer has no fallback (without a proposal
there is no lineage).

``rollout`` gives each run its own samples and its own cache entries. Every call goes through the
re-ask rule (:func:`tribunal.programs.answers.ask`): an answer that cannot be read, or whose
hypotheses cannot be built (a chain too short), is re-asked with what was wrong with it.
"""

from __future__ import annotations

import dspy

from tribunal.core.judges import Calls
from tribunal.programs.answers import UnusableAnswer, ask, tolerant_answers
from tribunal.programs.mqm.roles import calls_as
from tribunal.programs.fallbacks import Degradation, Fallback, stand_in
from tribunal.core.hyp_records import Challenge, Delivered, chain_hypothesis
from tribunal.signatures.hyp_workflow import CritiqueHypothesis, ProposeHypotheses, ReviseHypothesis

DEFAULT_MAX_PER_OPENING = 3
STAGE = "workflow"  # its calls are tagged (STAGE, role): proposer, critic, reviser
CALLS = Calls("per opening hypothesis: 1 proposer call, then per critique round 1 critic and 1 reviser call for "
              "every live hypothesis (1 to --max-per-opening: as many as the proposer's and reviser's answers "
              "offer); the engagement judge after them", fixed=False)
"""Its call structure, as ``tribunal hyp run --estimate`` reports it."""
FALLBACK = Fallback(("critic", "reviser"), "the previous revision, carried on unchanged (a round without revision)")


def fair_share(families: list[list[Delivered]], cap: int) -> list[Delivered]:
    """At most ``cap`` of the revisions, in their order: every parent's first, then every parent's
    second, ... (with no more parents than ``cap``, each parent keeps at least one child)."""
    ranked = sorted(((rank, index) for index, kids in enumerate(families) for rank in range(len(kids))))
    kept = set(ranked[:cap])
    return [kid for index, kids in enumerate(families) for rank, kid in enumerate(kids) if (rank, index) in kept]


class HypothesisWorkflow(dspy.Module):
    def __init__(self, rounds: int, max_per_opening: int = DEFAULT_MAX_PER_OPENING, strict: bool = False):
        super().__init__()
        self.strict = strict
        if rounds < 0:
            raise ValueError("rounds must be >= 0")
        if max_per_opening < 1:
            raise ValueError("max_per_opening must be >= 1")
        self.rounds, self.max_per_opening = rounds, max_per_opening
        self.proposer = dspy.Predict(ProposeHypotheses)
        self.critic = dspy.Predict(CritiqueHypothesis)
        self.reviser = dspy.Predict(ReviseHypothesis)

    def forward(self, research_question: str, observed_finding: str, opening_hypothesis: str, lineage_id: str,
                opening: int = 0, evidence: str = "", rollout: int | None = None) -> dspy.Prediction:
        """``delivered``: the lineage's final hypotheses; ``challenges``: every critique with its reply;
        ``degraded``: the fallbacks taken (dicts of :class:`~tribunal.programs.fallbacks.Degradation`)."""
        with tolerant_answers():
            return self._lineage(research_question, observed_finding, opening_hypothesis, lineage_id, opening,
                                 evidence, rollout)

    def _lineage(self, research_question: str, observed_finding: str, opening_hypothesis: str, lineage_id: str,
                 opening: int, evidence: str, rollout: int | None) -> dspy.Prediction:
        config = {"rollout_id": rollout} if rollout is not None else {}
        context = dict(research_question=research_question, observed_finding=observed_finding, evidence=evidence)
        cap = self.max_per_opening
        built: dict[str, list[Delivered]] = {}

        def hypotheses_of(prefix: str, parent: str | None, first: int = 0):
            def check(out: dspy.Prediction) -> None:  # built here, so a chain that cannot be built is re-asked
                built[prefix] = self._hypotheses(out.hypotheses, prefix, opening, parent, first)
            return check

        with calls_as(STAGE, "proposer"):
            ask(self.proposer, check=hypotheses_of(f"{lineage_id}/k0", None), role="proposer", config=config,
                **context, opening_hypothesis=opening_hypothesis, max_hypotheses=cap)
        live = built[f"{lineage_id}/k0"]
        truncated = max(0, len(live) - cap)
        live = live[:cap]
        challenges: list[Challenge] = []
        degraded: list[Degradation] = []
        for round_ in range(1, self.rounds + 1):
            children: list[Delivered] = []
            families: list[list[Delivered]] = []
            for node in live:
                before = node.hypothesis.render()
                prefix = f"{lineage_id}/k{round_}"
                try:
                    with calls_as(STAGE, "critic"):
                        critique = ask(self.critic, role="critic", config=config, **context, hypothesis=before)
                    with calls_as(STAGE, "reviser"):
                        revised = ask(self.reviser, check=hypotheses_of(prefix, node.hypothesis.id, len(children)),
                                      role="reviser", config=config, **context, hypothesis=before,
                                      demands=critique.demands, max_hypotheses=cap)
                except UnusableAnswer as err:  # the hypothesis goes on unrevised; no challenge to record
                    degraded.append(stand_in(FALLBACK, err, self.strict, node.hypothesis.id))
                    children.append(node)
                    families.append([node])
                    continue
                kids = built[prefix]
                responses = (list(revised.responses) + [None] * len(critique.demands))[:len(critique.demands)]
                challenges.append(Challenge(opening=opening, round=round_, hypothesis_id=node.hypothesis.id,
                                            before=before, demands=list(critique.demands), responses=responses,
                                            after="\n\n".join(k.hypothesis.render() for k in kids)))
                children += kids
                families.append(kids)
            truncated += max(0, len(children) - cap)
            live = fair_share(families, cap)
        return dspy.Prediction(delivered=live, challenges=challenges, truncated=truncated,
                               degraded=[d.as_dict() for d in degraded])

    @staticmethod
    def _hypotheses(items, prefix: str, opening: int, parent: str | None, first: int = 0) -> list[Delivered]:
        """The answer's hypotheses as delivered ones; :class:`UnusableAnswer` saying why when one cannot be built."""
        if not items:
            raise UnusableAnswer("the answer holds no hypothesis")
        delivered = []
        for i, h in enumerate(items):
            steps = [step for step in h.causal_chain if step.strip()]
            if len(steps) < 3:
                raise UnusableAnswer(f"hypothesis {i + 1}'s chain had {len(steps)} step{'' if len(steps) == 1 else 's'}; "
                                     "a chain needs an initiating event, at least one intermediate step and the finding")
            delivered.append(Delivered(opening=opening, parent=parent, hypothesis=chain_hypothesis(
                f"{prefix}.{first + i}", h.statement, h.explanation, h.causal_chain)))
        return delivered
