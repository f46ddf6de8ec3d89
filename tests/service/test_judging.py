"""The judging service: ``mt evaluate``, the MLflow scorer and the pyfunc model get the same run config (and,
from an export, the same program) for the same settings, because all three ask the service for it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from tribunal.service import judging as service
from tribunal.service.judging import JobRequest, NoSettings, configure, layered

LM = ["--lm", "openai/judge"]


class Captured(Exception):
    """Raised in place of the run, carrying the config ``mt evaluate`` would run with."""

    def __init__(self, config):
        super().__init__("captured")
        self.config = config


def cli_config(monkeypatch, tmp_path, *args: str):
    """The config ``tribunal mt evaluate ARGS`` hands to the service's ``run``."""
    from tribunal.cli import app

    def captured(config, *rest, **kwargs):
        raise Captured(config)

    monkeypatch.setattr(service, "run", captured)
    (tmp_path / "data" / "sources").mkdir(parents=True, exist_ok=True)
    result = CliRunner().invoke(app, ["mt", "evaluate", "--lp", "zh-en", *LM, "--data", str(tmp_path / "data"),
                                      "--no-track", *args])
    assert isinstance(result.exception, Captured), result.output
    return result.exception.config


SAME_SETTINGS = [  # (mt evaluate flags, MQMJudge fields)
    ([], {}),
    (["--preset", "lean", "--rounds", "2", "--ablate", "stage3"],
     {"settings": {"preset": "lean", "rounds": 2, "ablate": ("stage3",)}}),
    (["-S", "preset=lean", "-S", "rounds=2", "-S", "ablate=stage3"], {"settings": {"preset": "lean", "rounds": 2,
                                                                                  "ablate": "stage3"}}),
    (["--strategy", "deliberation"], {"settings": {"strategy": "deliberation"}}),
    (["--program", "gemba-mqm"], {"program": "gemba-mqm"}),
    (["--program", "eaprompt"], {"program": "eaprompt"}),
    (["--program", "gemba-esa", "--ablate", "spans"], {"program": "gemba-esa", "settings": {"ablate": ("spans",)}}),
    (["--program", "mqm-ape", "--ablate", "verifier"], {"program": "mqm-ape", "settings": {"ablate": ("verifier",)}}),
    (["--program", "joint-mqm", "-S", "orders=2"], {"program": "joint-mqm", "settings": {"orders": 2}}),
]


@pytest.mark.parametrize("flags,fields", SAME_SETTINGS, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_the_cli_and_the_scorer_judge_with_the_same_config(flags, fields, monkeypatch, tmp_path):
    from tribunal.scorers import MQMJudge

    evaluated = cli_config(monkeypatch, tmp_path, *flags)
    scored = MQMJudge(lm="openai/judge", **fields).evaluate_config("zh-en")
    assert scored.config_signature() == evaluated.config_signature()  # what a judgment depends on
    assert scored.program_settings() == evaluated.program_settings()
    assert (scored.metric_name, scored.demo_count) == (evaluated.metric_name, evaluated.demo_count)


@pytest.fixture
def export(tmp_path):
    """A sealed export of M-MAD without stage 3, one demo set on its judge."""
    import dspy

    from tribunal.data.program_export import export_document, write_export
    from tribunal.optimizers.program_settings import build_configured

    config = {"ablate": ["stage2"], "rounds": 2}
    program = build_configured("mmad", config)
    program.accuracy.demos = [dspy.Example(source="a", translation="b", rationale="none", errors=[])]
    return write_export(export_document(program, "mmad", config, {"dev_score": 0.5}), tmp_path / "tuned.json")


def pyfunc_config_and_factory(path, threads=1):
    from tribunal.optimizers.judge_model import TunedJudge
    from tribunal.programs.lm import LMSettings

    model = TunedJudge()
    model.load_context(SimpleNamespace(artifacts={"program": str(path)}))
    return model._factory(LMSettings(model="openai/judge"), threads)


def test_an_export_gives_the_same_config_and_program_through_every_door(export, monkeypatch, tmp_path):
    from tribunal.scorers import MQMJudge

    evaluated = cli_config(monkeypatch, tmp_path, "--program", str(export), "--concurrency", "1")
    scored = MQMJudge(lm="openai/judge", program_file=str(export)).evaluate_config("zh-en")
    modelled, make = pyfunc_config_and_factory(export)
    fields = ("program", "program_file", "program_sha256", "settings", "segment", "lm")
    for config in (scored, modelled):
        assert {f: getattr(config, f) for f in fields} == {f: getattr(evaluated, f) for f in fields}
        assert config.demo_count == evaluated.demo_count == 1
    assert evaluated.settings.ablate == ("stage2",) and evaluated.settings.rounds == 2
    assert scored.config_signature() == evaluated.config_signature()
    programs = [service.judge_factory(evaluated)(), service.judge_factory(scored)(), make()]
    states = [p.dump_state() for p in programs]
    assert states[0] == states[1] == states[2]
    assert [len(v["demos"]) for k, v in states[0].items() if k.startswith("accuracy")] == [1]


def test_an_export_of_another_program_than_the_one_named_is_refused(export):
    from tribunal.errors import UserError
    from tribunal.scorers import MQMJudge

    with pytest.raises(UserError, match="exported program is 'mmad', not 'gemba-mqm'"):
        MQMJudge(lm="openai/judge", program="gemba-mqm", program_file=str(export)).evaluate_config("zh-en")


def test_layers_place_settings_in_their_programs_section_and_given_values_win(export):
    merged = layered(JobRequest(base={"lp": "zh-en", "program": "gemba-esa", "concurrency": 3},
                                given={"concurrency": 5, "limit": None}, settings={"ablate": ["spans"]}))
    assert merged == {"lp": "zh-en", "program": "gemba-esa", "concurrency": 5, "esa": {"ablate": ["spans"]}}
    with pytest.raises(NoSettings):
        layered(JobRequest(given={"program": "eaprompt"}, settings={"ablate": ["x"]}))
    tuned = layered(JobRequest(base={"program": str(export), "mmad": {"rounds": 3, "strategy": "deliberation"}},
                               given={"mmad": {"rounds": 1}}))
    assert tuned["program"] == "mmad" and tuned["mmad"] == {"rounds": 1, "strategy": "deliberation", "ablate": ["stage2"]}
    config = configure(JobRequest(base=tuned, given={"lp": "zh-en", "lm": {"model": "openai/judge"}}))
    assert config.program_sha256 and config.settings.rounds == 1


def test_build_judge_is_the_registrys_program_with_its_segment_inputs():
    from tribunal.programs.mqm.esa import ESAConfig, GembaESAJudge
    from tribunal.programs.mqm.segment_inputs import SegmentInputs

    plain = service.build_judge("gemba-esa", ESAConfig(ablate=("spans",)))
    assert isinstance(plain, GembaESAJudge) and [n for n, _ in plain.named_predictors()] == ["rate"]
    with_ref = service.build_judge("gemba-esa", None, segment=SegmentInputs(reference="refA"))
    assert all("reference" in p.signature.input_fields for _, p in with_ref.named_predictors())
