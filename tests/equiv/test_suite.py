"""The shipped suite: size, deterministic construction, and the validity checks."""

import json

import pytest

from tribunal.eval.equiv.checks import PERTURBATION_KINDS, check_perturbation
from tribunal.core.hypothesis import Hypothesis, Step
from tribunal.eval.equiv.suite import default_suite_path, load_suite


@pytest.fixture(scope="module")
def suite():
    return load_suite()


def test_shipped_suite_has_40_hypotheses_and_seven_valid_perturbations_each(suite):
    originals = {p.original.id for p in suite.pairs}
    assert len(originals) == 40 and len(suite.pairs) == 280
    assert len(suite.hypotheses()) == 320
    for kind in PERTURBATION_KINDS:
        assert sum(p.kind == kind for p in suite.pairs) == 40
    for pair in suite.pairs:
        assert check_perturbation(pair.kind, pair.original, pair.perturbed) == []


def test_construction_is_deterministic(suite):
    assert load_suite().pairs == suite.pairs and load_suite().hash == suite.hash


def test_perturbations_change_what_their_kind_says(suite):
    for pair in suite.pairs:
        o, p = pair.original, pair.perturbed
        if pair.kind == "wording-only":
            assert o.steps == p.steps and o.statement == p.statement and o.explanation != p.explanation
        elif pair.kind == "wording-chain":
            assert o.entities == p.entities and [s.text for s in o.steps] != [s.text for s in p.steps]
        elif pair.kind == "first-step-swapped":
            assert o.entities[0] != p.entities[0] and o.entities[1:] == p.entities[1:]
        elif pair.kind == "alias-chain":
            assert o.entities == p.entities and o.relations == p.relations and o.steps != p.steps
        elif pair.kind.endswith("-minimal"):
            steps = [i for i, (a, b) in enumerate(zip(o.steps, p.steps)) if a != b]
            links = [i for i, (a, b) in enumerate(zip(o.relations, p.relations)) if a != b]
            assert len(steps + links) == 1 and ((steps + links)[0] == 0) == pair.kind.startswith("first")
        else:
            changed = [i for i, (a, b) in enumerate(zip(o.entities, p.entities)) if a != b]
            assert len(changed) == 1 and 0 < changed[0] < len(o.steps) - 1


def _h(entities, texts=None, explanation="e", relations=None):
    texts = texts or entities
    return Hypothesis(id="h", statement="s", explanation=explanation,
                      steps=tuple(Step(entity=e, text=t) for e, t in zip(entities, texts)),
                      relations=tuple(relations or ["causes"] * (len(entities) - 1)))


def test_checks_reject_invalid_perturbations():
    base = _h(["a", "b", "c", "d"])
    assert check_perturbation("wording-only", base, _h(["a", "b", "c", "d"])) == ["explanation not reworded"]
    assert check_perturbation("wording-only", base, _h(["a", "x", "c", "d"], explanation="f"))
    assert check_perturbation("wording-chain", base, _h(["a", "b", "c", "d"], ["alpha", "b", "c", "d"]),
                              {"a": frozenset({"alias-a"})}) == ["wording not in the alias table: ['alpha']"]
    assert check_perturbation("wording-chain", base, _h(["a", "b", "c", "d"], relations=["inhibits"] * 3))
    assert check_perturbation("first-step-swapped", base, _h(["z", "b", "x", "d"]))  # a middle step moved too
    assert check_perturbation("first-step-swapped", base, _h(["c", "b", "c", "d"]))  # entity already in chain
    assert check_perturbation("middle-step-swapped", base, _h(["a", "b", "c", "z"]))  # last step is not middle
    assert check_perturbation("middle-step-swapped", base, _h(["a", "x", "y", "d"]))  # two steps replaced
    assert check_perturbation("middle-step-swapped", base, _h(["a", "x", "c", "d"])) == []


def test_malformed_suite_line_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    line = json.loads(default_suite_path().read_text().splitlines()[0])
    line["middle_swap"]["index"] = 3  # the finding, not an intermediate step
    bad.write_text(json.dumps(line) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: .*middle-step-swapped"):
        load_suite(bad)


def test_a_duplicated_seed_id_is_refused_with_file_and_line(tmp_path, monkeypatch, capsys):
    import sys

    from tribunal.cli import main

    lines = default_suite_path().read_text().splitlines()
    path = tmp_path / "dup.jsonl"
    path.write_text("\n".join([lines[0], lines[1], lines[0]]) + "\n")
    first_id = json.loads(lines[0])["id"]
    with pytest.raises(ValueError, match=rf"dup.jsonl:3: duplicate id '{first_id}' \(first on line 1\)"):
        load_suite(path)
    monkeypatch.setattr(sys, "argv", ["tribunal", "equiv", "audit", "--suite", str(path), "--rules", "tfidf",
                                      "--no-track"])
    with pytest.raises(SystemExit) as exit_:
        main()
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith(f"tribunal: error: {path}:3: duplicate id") and err.count("\n") == 1


def test_checks_of_the_kinds_people_make():
    base = _h(["ILC2s secrete IL-13", "eosinophil recruitment", "increased mucus production", "airway obstruction"])
    renamed = ["ILC2s secrete interleukin-13", "eosinophil recruitment", "increased mucus production", "airway obstruction"]
    assert check_perturbation("alias-chain", base, _h(base.entities, renamed)) == []
    dosed = _h(["IL-13 above 5 ng/ml", *base.entities[1:]])
    numbered = ["interleukin-13 above 6 ng/ml", *renamed[1:]]  # a quantity changed: not an alias
    assert "changes a number or a direction" in check_perturbation("alias-chain", dosed, _h(dosed.entities, numbered))[0]
    turned = [renamed[0], renamed[1], "decreased mucus production", renamed[3]]
    assert check_perturbation("alias-chain", base, _h(base.entities, turned))
    minimal = ["ILC2s secrete IL-9", *base.entities[1:]]
    assert check_perturbation("first-step-minimal", base, _h(minimal)) == []
    assert check_perturbation("middle-step-minimal", base, _h(minimal))  # the first step is not a middle one
    one_run = ["mast cells secrete IL-13", *base.entities[1:]]
    assert check_perturbation("first-step-minimal", base, _h(one_run)) == []  # one word for two, in one place
    two_places = ["Th2 cells secrete IL-9", *base.entities[1:]]
    assert "one place" in check_perturbation("first-step-minimal", base, _h(two_places))[0]
    whole = ["allergen exposure", *base.entities[1:]]
    assert "keep some of its words" in check_perturbation("first-step-minimal", base, _h(whole))[0]
    link = _h(base.entities, relations=["causes", "inhibits", "causes"])
    assert check_perturbation("middle-step-minimal", base, link) == []
    assert check_perturbation("first-step-minimal", base, link)  # the changed link is not the first
