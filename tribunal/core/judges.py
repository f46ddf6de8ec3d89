"""The judge registry: every judge tribunal ships is declared once, here, in one :class:`Judge` entry.

An entry names everything the rest of tribunal needs to know about a judge: its display name, what
it judges (``kind``), the scale of its score, its settings model and the section of the run's config
file that holds them, its roles (and the fallbacks its method defines for them), its labelled and
default few-shot demos, and the builder of its ``dspy.Module``. Every other table (the ``--program``
choices of each command, the config sections, the score scales, the demo plans, the labels) is read
from :data:`JUDGES`.

Objects are named by ``"module:attribute"`` paths imported on first use, so listing the judges
imports nothing above this layer and costs nothing. Adding a judge is one :meth:`JudgeRegistry.add`
(a test may add one and remove it again).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Callable, Iterator, Literal, TypeVar, cast

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

from tribunal.core.demo_plan import DemoPlan, LabelFunction

if TYPE_CHECKING:  # the types of what the paths name: nothing above this layer is imported
    import dspy

    from tribunal.core.judge_settings import JudgeSettings
    from tribunal.programs.mqm.roles import RoleLMs
    from tribunal.programs.mqm.segment_inputs import SegmentInputs

Kind = Literal["mt", "equiv"]
Scale = Literal["mqm", "esa"]


Loaded = TypeVar("Loaded")


def load(target: str | Loaded) -> Loaded | object:
    """The object a ``"module:attribute"`` path names (anything else is returned as it is)."""
    if not isinstance(target, str):
        return target
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Settings:
    """A judge's settings: a pydantic model, passed to its builder as ``keyword=Model(...)``."""

    model: str
    """``"module:Class"`` of the pydantic model (``extra="forbid"``) holding every switch."""
    section: str
    """The section of the run's config file holding them (``[mmad]``), read into ``EvaluateConfig.settings``."""
    keyword: str = "config"


@dataclass(frozen=True)
class Alias:
    """A command-line flag of ``mt evaluate`` standing for one setting: ``--rounds 2`` is ``-S rounds=2``."""

    flag: str
    setting: str
    help: str
    """What the flag does; a flag several judges declare shows the first one's, then each judge's ``choices``."""
    choices: str = ""
    """This judge's values (``stage1 | stage2 | stage3 (mmad)``), listed after ``help``."""
    metavar: str | None = None
    integer: bool = False
    """Whether the flag takes a whole number (shown as INTEGER in ``--help``)."""
    repeatable: bool = False
    """Whether the flag is given once per value (``--ablate stage2 --ablate stage3``), for a list setting."""


@dataclass(frozen=True)
class Calls:
    """A judge's call structure, as ``--estimate`` reports it (the calls themselves come from rehearsing it)."""

    rule: str
    """Which calls an item makes, and what their number depends on."""
    fixed: bool = True
    """Whether every item makes the same calls whatever the answers (the estimate's range is then one number)."""


@dataclass(frozen=True)
class Judge:
    """One judge, declared once (see the module docstring)."""

    name: str
    builder: str | Callable[..., dspy.Module]
    """``"module:attribute"`` of the ``dspy.Module`` class (or a factory) building a fresh, untuned judge."""
    kind: Kind | None = None
    """What it judges: ``mt`` (an MQM annotation of a translation) or ``equiv`` (a pair of hypotheses);
    None: the built program says (``judge_kind``)."""
    display: str = ""
    """Its name in score files and run names (default: ``name``)."""
    scale: Scale = "mqm"
    """The scale of its score: ``mqm`` (penalties, 0 best) or ``esa`` (GEMBA-ESA's 0-100)."""
    settings: Settings | None = None
    roles: str | tuple[str, ...] = ()
    """``"module:attribute"`` of the role names its program declares (its ``ROLES``: the roles its LM calls are
    made as, each of which may run on its own LM, ``--role-lm ROLE=MODEL``), or the names themselves (a test
    judge); read through :meth:`role_names`."""
    role_groups: tuple[tuple[str, str], ...] = ()
    """``(role, group)``: a role without its own LM falls back to its group's, then to the default LM."""
    answer_tokens: tuple[tuple[str, int], ...] = ()
    """``(role, tokens)``: the token limit that fits the role's answer, sent on a paid API when ``--max-tokens``
    is not given (instead of the provider's maximum); ``docs/reference/answer-limits.md`` says how each
    was derived from the role's output fields and measured answer lengths."""
    fallbacks: str | None = None
    """``"module:attribute"`` of the :class:`~tribunal.programs.fallbacks.Fallback` (or a dict of them) its
    method defines for a role that stays unusable; None: a failed role unscores the item."""
    labels: str | None = None
    """``"module:attribute"`` of ``{predictor: label}`` turning a human-labelled example into a demo."""
    demos: str | None = None
    """``"module:attribute"`` of its default demo plan (``count`` and ``build``); None: zero-shot."""
    marks_spans: bool = True
    """Whether it outputs error spans (EAPrompt only counts errors)."""
    spans_switch: str | None = None
    """The ablation switch that leaves its span step out (GEMBA-ESA's ``spans``)."""
    aliases: tuple[Alias, ...] = ()
    """``mt evaluate`` flags standing for its settings (``--rounds`` for ``-S rounds=``); another program refuses them."""
    options: tuple[str, ...] = ()
    """``mt evaluate`` options of the run (not settings) only this judge takes (another program refuses them)."""
    default: bool = False
    """The judge of its kind a command runs when none is named."""
    calls: Calls = Calls("one call per role per item")
    """Its call structure (``--estimate``)."""
    stages: tuple[tuple[str, int], ...] = ()
    """``(stage, calls ahead)``: the most sequential calls an item still makes after a call of that stage, by
    which the scheduler serves the longest chain first (:mod:`tribunal.core.scheduling`; an unknown stage: 0)."""
    together: bool = False
    """Whether it judges all candidate translations of one source segment together: its program's
    ``forward(source, candidates=[...], ...)`` returns ``judgments``, one prediction per candidate, and a
    runner makes one program call per source segment instead of one per translation."""

    @property
    def title(self) -> str:
        """The display name (``name`` when none is declared)."""
        return self.display or self.name

    def role_names(self) -> tuple[str, ...]:
        """The roles its program declares (imported on first use, as the builder is)."""
        return tuple(cast("tuple[str, ...]", load(self.roles))) if self.roles else ()

    def factory(self) -> Callable[..., dspy.Module]:
        """The builder (imported on first use)."""
        return cast("Callable[..., dspy.Module]", load(self.builder))

    def settings_model(self) -> type[JudgeSettings] | None:
        """The pydantic class of its settings, None for a judge without."""
        return cast("type[JudgeSettings]", load(self.settings.model)) if self.settings else None

    def build(self, settings: JudgeSettings | None = None, lms: RoleLMs | None = None,
              **keywords: object) -> dspy.Module:
        """A fresh program: ``settings`` (its model; None: the defaults) and ``lms`` (role LMs) when given."""
        if self.settings is not None and settings is not None:
            keywords[self.settings.keyword] = settings
        if lms is not None:
            keywords["lms"] = lms
        return self.factory()(**keywords)

    def label_functions(self) -> dict[str, LabelFunction]:
        """``{predictor: label}`` (empty for a judge without labelled demos)."""
        return dict(cast("dict[str, LabelFunction]", load(self.labels))) if self.labels else {}

    def demo_plan(self) -> DemoPlan | None:
        """Its default demo plan, None for a zero-shot judge."""
        return cast(DemoPlan, load(self.demos)) if self.demos else None

    def spans_marked(self, settings: JudgeSettings | None = None) -> bool:
        """Whether this judge with ``settings`` outputs error spans."""
        ablated = self.spans_switch is not None and self.spans_switch in getattr(settings, "ablate", ())
        return self.marks_spans and not ablated


class JudgeRegistry:
    """The judges by name, in declaration order."""

    def __init__(self, judges: tuple[Judge, ...] | list[Judge] = ()):
        self._judges: dict[str, Judge] = {}
        self._ahead: dict[str, int] | None = None  # calls_ahead(), kept until the registry changes
        for judge in judges:
            self.add(judge)

    def add(self, judge: Judge) -> Judge:
        """Declare ``judge`` (replacing an entry of the same name)."""
        self._judges[judge.name] = judge
        self._ahead = None
        return judge

    def remove(self, name: str) -> None:
        """Forget ``name`` (nothing if unknown)."""
        self._judges.pop(name, None)
        self._ahead = None

    def calls_ahead(self) -> dict[str, int]:
        """``{stage: calls ahead}`` over every judge's ``stages`` (a stage two judges name: the larger)."""
        ahead = self._ahead
        if ahead is None:
            ahead = {}
            for judge in self:
                for stage, count in judge.stages:
                    ahead[stage] = max(count, ahead.get(stage, 0))
            self._ahead = ahead
        return ahead

    def __contains__(self, name: object) -> bool:
        return name in self._judges

    def __iter__(self) -> Iterator[Judge]:
        return iter(list(self._judges.values()))

    def find(self, name: str) -> Judge | None:
        """The entry of ``name``, None when unknown."""
        return self._judges.get(name)

    def get(self, name: str) -> Judge:
        """The entry of ``name``; KeyError naming the known judges otherwise."""
        if name not in self._judges:
            raise KeyError(f"unknown judge {name!r} (known: {', '.join(self._judges)})")
        return self._judges[name]

    def names(self, kind: Kind | None = None) -> list[str]:
        """The names, in declaration order (of ``kind`` only, when given)."""
        return [j.name for j in self if kind is None or j.kind == kind]

    def default(self, kind: Kind) -> str:
        """The name of the default judge of ``kind``."""
        return next(j.name for j in self if j.kind == kind and j.default)

    def owner(self, option: str) -> Judge | None:
        """The judge that alone takes ``mt evaluate`` option ``option`` (None: any judge takes it)."""
        return next((j for j in self if option in j.options), None)

    def aliases(self) -> dict[str, list[tuple[Judge, Alias]]]:
        """``{flag: [(judge, alias), ...]}``: every setting flag, with the judges that take it, in declaration order."""
        flags: dict[str, list[tuple[Judge, Alias]]] = {}
        for judge in self:
            for alias in judge.aliases:
                flags.setdefault(alias.flag, []).append((judge, alias))
        return flags

    def roles(self) -> tuple[str, ...]:
        """Every role of every judge, each once, groups included, in declaration order."""
        seen: dict[str, None] = {}
        for judge in self:
            for role in judge.role_names():
                seen.setdefault(role)
        return tuple(seen)

    def answer_tokens(self) -> dict[str, int]:
        """``{role: tokens}`` over every judge (a role two judges share gets the larger of their limits)."""
        limits: dict[str, int] = {}
        for judge in self:
            for role, tokens in judge.answer_tokens:
                limits[role] = max(tokens, limits.get(role, 0))
        return limits

    def role_groups(self) -> dict[str, str]:
        """``{role: group}`` over every judge."""
        return {role: group for judge in self for role, group in judge.role_groups}


_MQM = "tribunal.programs.mqm"
_DIMENSIONS = ("accuracy", "fluency", "style", "terminology")
_SEGMENT_INPUTS = f"{_MQM}.segment_inputs:with_segment_inputs"  # gives an MT judge its reference / context


def _ablate(switches: str) -> Alias:
    """``--ablate SWITCH``, repeatable: a step the judge leaves out (``-S ablate=...``)."""
    return Alias("--ablate", "ablate", "Leave a step out (repeatable)", switches, "SWITCH", repeatable=True)


_MMAD_FLAGS = (
    Alias("--preset", "preset", "M-MAD protocol: paper (the published one; default) | lean (fewer calls)."),
    Alias("--strategy", "strategy", "M-MAD debate: consensus (default) | deliberation | interactive-review | "
                                    "consultancy-review."),
    Alias("--rounds", "rounds", "M-MAD: most debate rounds (default: 3).", integer=True),
    Alias("--topic", "topic", "M-MAD debate topic: severity (default) | category | free."),
    _ablate("stage1 | stage2 | stage3 (mmad)"),
)

JUDGES = JudgeRegistry([
    Judge("mmad", f"{_MQM}.mmad:MMAD", "mt", "M-MAD", default=True,
          settings=Settings(f"{_MQM}.mmad_settings:MMADConfig", "mmad"), aliases=_MMAD_FLAGS,
          roles=f"{_MQM}.mmad_roles:ROLES",
          role_groups=(*((d, "assessor") for d in _DIMENSIONS), ("defender", "debater"), ("opposer", "debater")),
          answer_tokens=(*((d, 512) for d in _DIMENSIONS), ("coupled", 768), ("defender", 768), ("opposer", 768),
                         ("consensus", 128), ("reviewer", 512), ("debate_judge", 512), ("judge", 768)),
          fallbacks=f"{_MQM}.mmad:FALLBACKS", labels=f"{_MQM}.labels:MMAD_LABELS", demos=f"{_MQM}.fixed_demos:MMAD_DEMOS",
          options=("--demos",), stages=(("stage1", 32), ("stage2", 1), ("stage3", 0)),  # stage 1 above any debate
          calls=Calls("4 dimension agents (1 coupled call without stage 1); a debate for each dimension whose stage-1 "
                      "errors are debated (paper: a major error or non-translation; lean: any error), each round 2 "
                      "debater calls plus the consensus check (paper) or until the debaters agree (lean), up to "
                      "--rounds rounds; the final judge unless its policy skips it (paper: no stage-1 error)",
                      fixed=False)),
    Judge("gemba-mqm", f"{_MQM}.gemba:GembaMQMJudge", "mt", "GEMBA-MQM", roles=f"{_MQM}.gemba:ROLES",
          answer_tokens=(("gemba", 512),),
          calls=Calls("1 call per item"), labels=f"{_MQM}.labels:GEMBA_LABELS", demos=f"{_MQM}.baseline_demos:GEMBA_MQM_DEMOS"),
    Judge("gemba-mqm-v2", f"{_MQM}.gemba_v2:GembaMQMV2Judge", "mt", "GEMBA-MQM-V2", roles=f"{_MQM}.gemba:ROLES",
          answer_tokens=(("gemba", 512),), labels=f"{_MQM}.labels:GEMBA_LABELS",
          demos=f"{_MQM}.baseline_demos:GEMBA_MQM_DEMOS",
          calls=Calls("1 call per item and sample (the published preset: --samples 10 --combine gemba-v2)")),
    Judge("eaprompt", f"{_MQM}.eaprompt:EAPromptJudge", "mt", "EAPrompt", roles=f"{_MQM}.eaprompt:ROLES",
          answer_tokens=(("eaprompt", 768),),
          calls=Calls("1 call per item"), labels=f"{_MQM}.labels:EAPROMPT_LABELS", marks_spans=False),
    Judge("gemba-esa", f"{_MQM}.esa:GembaESAJudge", "mt", "GEMBA-ESA", scale="esa",
          settings=Settings(f"{_MQM}.esa:ESAConfig", "esa"), aliases=(_ablate("spans (gemba-esa)"),),
          roles=f"{_MQM}.esa:ROLES", stages=(("spans", 1), ("score", 0)),
          answer_tokens=(("evaluator", 512), ("scorer", 128)),
          calls=Calls("2 calls per item: the error spans, then the score (1 without the span step)"),
          labels=f"{_MQM}.labels:ESA_LABELS", demos=f"{_MQM}.baseline_demos:GEMBA_ESA_DEMOS", spans_switch="spans"),
    Judge("mqm-ape", f"{_MQM}.ape:MQMAPEJudge", "mt", "MQM-APE",
          settings=Settings(f"{_MQM}.ape:APEConfig", "ape"), aliases=(_ablate("verifier (mqm-ape)"),),
          stages=(("evaluate", 2), ("post_edit", 1), ("verify", 0)),
          roles=f"{_MQM}.ape:ROLES",
          answer_tokens=(("evaluator", 512), ("post_editor", 512), ("verifier", 128)),
          calls=Calls("1 evaluator call, then per error found a post-edit and (unless ablated) its verification; "
                      "the high end counts 3 errors an item", fixed=False), fallbacks=f"{_MQM}.ape:FALLBACK",
          labels=f"{_MQM}.labels:APE_LABELS", demos=f"{_MQM}.baseline_demos:MQM_APE_DEMOS"),
    Judge("error-free", f"{_MQM}.error_free:ErrorFreeJudge", "mt", "ErrorFree", scale="esa",
          roles=f"{_MQM}.error_free:ROLES",
          answer_tokens=(("error_free", 64),), calls=Calls("1 call per item"), marks_spans=False,
          labels=f"{_MQM}.labels:ERROR_FREE_LABELS"),
    Judge("joint-mqm", f"{_MQM}.joint:JointMQMJudge", "mt", "Joint-MQM", roles=f"{_MQM}.joint:ROLES",
          settings=Settings(f"{_MQM}.joint:JointConfig", "joint"), answer_tokens=(("joint", 1024),), together=True,
          labels=f"{_MQM}.labels:JOINT_LABELS",
          calls=Calls("1 call per source segment for all its candidates (2 with joint.orders=2): 1/N (2/N) calls "
                      "per translation for N candidates")),
    Judge("equiv-llm", "tribunal.programs.equiv_judge:EquivalenceJudge", "equiv", default=True,
          answer_tokens=(("equivalence judge", 512),),
          calls=Calls("up to 3 judgments per pair: 2 when the first two agree", fixed=False)),
])
"""The shipped judges."""


def build_judge(name: str, settings: JudgeSettings | None = None, lms: RoleLMs | None = None,
                segment: SegmentInputs | None = None, **keywords: object) -> dspy.Module:
    """A fresh, untuned program of judge ``name``: its settings model (None: the defaults), role LMs,
    segment inputs (a ``SegmentInputs``, MT judges) and further constructor keywords."""
    with_segment_inputs = cast("Callable[[dspy.Module, SegmentInputs | None], dspy.Module]",
                               load(_SEGMENT_INPUTS))  # by path, as the builders: core imports nothing above it
    return with_segment_inputs(JUDGES.get(name).build(settings, lms, **keywords), segment)


def _mt_judge(value: str) -> str:
    """``value`` if it names an MT judge of :data:`JUDGES`, else the error pydantic gives a wrong choice."""
    names = JUDGES.names("mt")
    if value not in names:
        quoted = [repr(name) for name in names]
        expected = " or ".join([", ".join(quoted[:-1]), quoted[-1]]) if len(quoted) > 1 else "".join(quoted)
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
    return value


MTJudgeName = Annotated[str, AfterValidator(_mt_judge)]
"""A field holding the name of an MT judge, checked against the registry when validated."""
