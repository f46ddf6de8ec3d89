"""Every setting of every registered judge keys its run: changing one changes the journal key, the run
signature and the output folder (two runs with different settings never resume one journal).

The alternatives of a field are read from its type (each ``Literal`` choice, a flipped bool, an int
one higher, a tuple of one choice); an alternative the model's own rules refuse alone (M-MAD's coherence
checks) is tried with one other field changed too, and every field must have an accepted alternative.
"""

from __future__ import annotations

import typing

import pytest
from pydantic import BaseModel, ValidationError

from tribunal.core.judges import JUDGES, load
from tribunal.eval.mt.config import EvaluateConfig, changed_settings, settings_label
from tribunal.eval.mt.journal import journal_path
from tribunal.programs.lm import LMSettings

LM = LMSettings(model="openai/x", api_base="http://127.0.0.1:1/v1")
WITH_SETTINGS = [j for j in JUDGES if j.kind == "mt" and j.settings is not None]


def _alternatives(annotation, current):
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return [a for a in args if a != current]
    if annotation is bool:
        return [not current]
    if annotation is int:
        return [current + 1]
    if annotation is str:
        return [f"{current}-other", "single-advocate", "consultancy-review"]
    if origin is tuple and args:
        return [(choice,) for choice in _alternatives(args[0], None)]
    return []


def _bases(model: type[BaseModel]) -> list[BaseModel]:
    if "preset" in model.model_fields:  # M-MAD: its lean preset frees the switches the paper preset ties
        return [model(), model(preset="lean")]
    return [model()]


def _changed(model, base, name, value):
    """``base`` with ``name`` set to ``value`` (and, where the model refuses that alone, one other field changed
    as well), or None."""
    dumped = base.model_dump()
    tries = [{}] + [{other: v} for other, f in model.model_fields.items() if other != name
                    for v in _alternatives(f.annotation, dumped[other])]
    for extra in tries:
        try:
            return model(**{**dumped, **extra, name: value})
        except ValidationError:
            continue
    return None


@pytest.mark.parametrize("judge", WITH_SETTINGS, ids=lambda j: j.name)
def test_changing_any_setting_changes_the_journal_key_signature_and_folder(judge, tmp_path):
    every_setting_keys_the_run(judge, tmp_path)


def test_a_judge_added_with_a_setting_of_its_own_is_keyed_by_it(tmp_path):
    from tests.support.strict_judge import registered

    with registered() as judge:
        every_setting_keys_the_run(judge, tmp_path)


def every_setting_keys_the_run(judge, tmp_path) -> None:
    """For each field of ``judge``'s settings model, each alternative value changes the journal key, the run
    signature, the metric name or signature-keyed output folder, as the config file's section gives it."""
    model = load(judge.settings.model)
    section = judge.settings.section
    for name, field in model.model_fields.items():
        accepted = 0
        for base in _bases(model):
            before = EvaluateConfig(lp="zh-en", lm=LM, program=judge.name, **{section: base})
            for value in _alternatives(field.annotation, getattr(base, name)):
                changed = _changed(model, base, name, value)
                if changed is None or changed == base:
                    continue
                after = EvaluateConfig(lp="zh-en", lm=LM, program=judge.name, **{section: changed.model_dump()})
                accepted += 1
                assert after.config_signature() != before.config_signature(), (judge.name, name, value)
                assert journal_path(tmp_path, after.config_signature()) != \
                    journal_path(tmp_path, before.config_signature())
                assert str(after.signature(data="d@h")) != str(before.signature(data="d@h")), (judge.name, name)
                assert after.output_dir != before.output_dir, (judge.name, name, value)
        assert accepted, f"{judge.name}: no alternative value of {name!r} was tried"


class _Toy(BaseModel):
    orders: int = 1
    shuffle: bool = True
    seed_rule: typing.Literal["source", "item"] = "source"


def test_a_judges_own_settings_are_written_whole_and_named_when_changed():
    assert settings_label(_Toy()) == "orders=1,seed_rule=source,shuffle=True"
    assert changed_settings(_Toy()) == {}
    assert changed_settings(_Toy(orders=2, shuffle=False)) == {"orders": "2", "shuffle": "False"}
