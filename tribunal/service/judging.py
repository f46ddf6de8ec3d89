"""The judging service: typed settings + items -> typed results, the one way a judge run is assembled.

Every caller that runs an MT judge goes through here: ``tribunal mt evaluate`` (:func:`configure`,
then :func:`run`: the run outputs), the MLflow scorer :class:`tribunal.scorers.MQMJudge`
(:func:`configure`, :func:`judge_factory`), the pyfunc model
:class:`tribunal.optimizers.judge_model.TunedJudge` (:func:`configure`, :func:`judge_items`) and the
optimizers (:func:`build_judge`). So the same settings give the same ``EvaluateConfig``, the same
program, demos and requests, whichever door they came in by.

A :class:`JobRequest` holds the values in layers: ``base`` (a config file), ``given`` (explicit
values; ``None`` means not given) and ``settings`` (the program's own switches, placed in the
section its registry entry names). A ``program`` (or ``program_file``) naming an exported file brings
the export's program, settings and seal: over ``base``, under ``given``.

Called as a library, the service leaves the caller's process as it found it: no ``dspy.configure``
(LMs travel in ``dspy.context`` and the program's own predictors) and the warnings filters put back
after each call (:func:`tribunal.quiet.leaves_filters_as_found`).

The service is a layer of its own (see ``ARCHITECTURE.md``): above ``eval`` (the config model, the
runner), below the optimizers and the app. The config model and the runner pull in DSPy, so each
function imports them when called: ``import tribunal.service.judging`` stays cheap for the CLI's start.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from tribunal.core.judges import JUDGES, build_judge
from tribunal.data.program_export import is_program_file, read_export
from tribunal.errors import UserError
from tribunal.quiet import leaves_filters_as_found

if TYPE_CHECKING:  # the types the service's doors take and give, loaded when called (see the module docstring)
    import dspy

    from tribunal.core.item_result import ItemResult
    from tribunal.core.mt_item import JudgeItem
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.eval.mt.job import EvaluationResult
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.runner.spending_cap import SpendingCap

__all__ = ["JobRequest", "NoSettings", "build_judge", "configure", "export_fields", "judge_factory", "judge_items",
           "layered", "run"]


class NoSettings(ValueError):
    """Settings were given for a program that takes none (each caller words it for its own option)."""

    def __init__(self, program: str):
        super().__init__(f"program {program} has no settings")
        self.program = program


@dataclass
class JobRequest:
    """What a caller asks to be judged with, in layers (see the module docstring)."""

    base: Mapping[str, object] = field(default_factory=dict)
    given: Mapping[str, object] = field(default_factory=dict)
    settings: Mapping[str, object] = field(default_factory=dict)


def export_fields(path: str | Path) -> dict[str, object]:
    """The run values an exported program brings: its program, file, seal, segment inputs and settings.

    The export is verified (seal, structure, no secrets) before anything is read from it.
    """
    from tribunal.programs.mqm.segment_inputs import SEGMENT_KEYS  # heavy: pulls in dspy

    document = read_export(path)
    info = document["program"]
    fields: dict[str, object] = {"program": info["name"], "program_file": Path(path), "program_sha256": document["sha256"]}
    config = dict(info.get("config") or {})
    segment = {key: config.pop(key) for key in SEGMENT_KEYS if key in config}  # the export's reference / context
    if segment:
        fields["segment"] = segment
    judge = JUDGES.find(info["name"])
    if judge is not None and judge.settings is not None and config:
        fields[judge.settings.section] = config
    return fields


def _export_path(request: JobRequest) -> str | Path | None:
    """The export a request names: ``given`` ``program_file``, or the ``program`` (given, else the base's)
    when it is a file's path."""
    if request.given.get("program_file"):
        return request.given["program_file"]
    program = request.given.get("program") or request.base.get("program")
    return program if isinstance(program, str) and is_program_file(program) else None


def layered(request: JobRequest) -> dict[str, object]:
    """The request's values merged (config file < export < given), settings in their program's section.

    Raises :class:`NoSettings` for settings of a program without a settings model (or of an unknown one).
    """
    from tribunal.eval.mt.config import merge  # heavy: pulls in dspy

    given = dict(request.given)
    path = _export_path(request)
    if path is not None:
        tuned = export_fields(path)
        if isinstance(given.get("program"), str) and given["program"] not in (str(path), tuned["program"]):
            raise UserError(f"{path}: exported program is {tuned['program']!r}, not {given['program']!r}")
        merged = merge(merge(dict(request.base), tuned), {**given, "program": None, "program_file": None})
    else:
        merged = merge(dict(request.base), given)
    if request.settings:
        program = merged.get("program") or JUDGES.default("mt")
        judge = JUDGES.find(program) if isinstance(program, str) else None
        if judge is None or judge.settings is None:
            raise NoSettings(str(program))
        merged = merge(merged, {judge.settings.section: dict(request.settings)})
    return merged


@leaves_filters_as_found  # what the libraries it loads set on import stays out of the caller's filters
def configure(request: JobRequest | Mapping[str, object]) -> EvaluateConfig:
    """The run's typed ``EvaluateConfig``; pydantic's ``ValidationError`` for invalid values."""
    from tribunal.eval.mt.config import EvaluateConfig  # heavy: pulls in dspy

    values = layered(request) if isinstance(request, JobRequest) else dict(request)
    return EvaluateConfig.model_validate(values)


@leaves_filters_as_found  # what the libraries it loads set on import stays out of the caller's filters
def judge_factory(config: EvaluateConfig, engine: object = None) -> Callable[[], dspy.Module]:
    """A function building a fresh judge of ``config`` (LMs, demos, tuned state), as the runner builds it."""
    from tribunal.eval.mt.judge_builder import program_factory  # heavy: pulls in dspy

    return program_factory(config, engine)


class _Collected:
    """Stands in for the run journal: results kept in memory."""

    def __init__(self) -> None:
        self.results: dict[str, ItemResult] = {}

    def append(self, result: ItemResult) -> None:
        self.results[result.key] = result


@leaves_filters_as_found  # what the libraries it loads set on import stays out of the caller's filters
def judge_items(config: EvaluateConfig, items: Iterable[JudgeItem], languages: Mapping[str, str],
                make_program: Callable[[], dspy.Module] | None = None, threads: int | None = None) -> dict[str, ItemResult]:
    """``{item key: ItemResult}`` for ``items`` (``JudgeItem``) in one language pair, judged as ``mt evaluate``
    judges them, with no journal (``make_program``: a :func:`judge_factory` to reuse)."""
    from tribunal.eval.mt.judging import judge_all  # heavy: pulls in dspy

    collected = _Collected()
    judge_all(make_program or judge_factory(config), list(items), dict(languages), collected,
              threads or config.concurrency, together=config.judge.together)
    return collected.results


@leaves_filters_as_found  # what the libraries it loads set on import stays out of the caller's filters
def run(config: EvaluateConfig, tracking: TrackingSettings, engine: object = None,
        progress: Callable[[int, int], object] | None = None, trace_sample: float | None = None,
        cap: SpendingCap | None = None) -> EvaluationResult:
    """Judge the config's data, write the run outputs (score files, errors, transcripts, journal,
    summary.json), meta-evaluate and track: the ``EvaluationResult`` of ``mt evaluate``. ``cap``: a
    spending cap (:class:`tribunal.runner.spending_cap.SpendingCap`) for this run's calls."""
    from tribunal.eval.mt.job import run_evaluation  # heavy: pulls in dspy

    return run_evaluation(config, tracking, engine, progress=progress, trace_sample=trace_sample, cap=cap)
