"""A judge's settings: one typed pydantic model per judge, declared in its registry entry.

Everything a run derives from a judge's settings is asked of the model itself, so the generic layers
(the run's config, its signature, metric name, output folder, run name and tracked parameters) name no
judge and no setting:

- :meth:`JudgeSettings.name_parts`: what the metric name adds (default: each changed setting,
  ``orders2``, a switched-on flag ``shuffle``, off ``no-shuffle``);
- :meth:`JudgeSettings.signature_fields`: the run signature's fields (default: one ``settings`` field
  holding every setting, defaults included), written between ``tuned`` and ``lm``;
- :meth:`JudgeSettings.run_label_parts`: words a run name adds after the metric name (default: none);
- :meth:`JudgeSettings.tracked_params`: the MLflow parameters (default: ``<section>.<setting>``);
- :meth:`JudgeSettings.debate_rounds`: the most rounds of a debate, for the per-round statistics
  (default: 0, a judge that holds no debates).

A model whose only switches are ablations (``ablate``) derives :class:`Ablations`: named ``no-<switch>``
and signed by one ``ablate`` field. A model overriding these keeps names and signatures of its own
(M-MAD's ``MMADConfig`` keeps its ``preset``, ``strategy``, ... fields).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, JsonValue


class JudgeSettings(BaseModel):
    """The base of every judge's settings model (``extra="forbid"``: an unknown setting is an error)."""

    model_config = ConfigDict(extra="forbid")

    def name_parts(self) -> list[str]:
        """The parts the metric name adds after the judge's display name (the changed settings)."""
        return [name_part(key, value) for key, value in changed_settings(self).items()]

    def signature_fields(self) -> dict[str, str]:
        """The run signature's fields for these settings: every setting, defaults included."""
        return {"settings": settings_label(self)}

    def run_label_parts(self) -> list[str]:
        """Words a run name adds after the metric name (none by default: the metric name tells)."""
        return []

    def tracked_params(self, section: str) -> dict[str, JsonValue]:
        """The MLflow parameters: ``<section>.<setting>`` for each setting (lists joined with ``,``)."""
        return {f"{section}.{k}": ",".join(map(str, v)) if isinstance(v, (tuple, list)) else v
                for k, v in self.model_dump().items()}

    def debate_rounds(self) -> int:
        """The most rounds a debate of this judge holds (0: it holds none)."""
        return 0


class Ablations(JudgeSettings):
    """Settings whose only switches are ablations: a subclass declares ``ablate: tuple[Literal[...], ...] = ()``."""

    ablate: tuple[str, ...] = ()

    def name_parts(self) -> list[str]:
        """``no-<switch>`` for each step left out."""
        return [f"no-{switch}" for switch in self.ablate]

    def signature_fields(self) -> dict[str, str]:
        """One ``ablate`` field: the steps left out, ``none`` for none."""
        return {"ablate": ",".join(self.ablate) or "none"}

    def tracked_params(self, section: str) -> dict[str, JsonValue]:
        """One ``ablate`` parameter, as the signature writes it."""
        return {"ablate": ",".join(self.ablate) or "none"}


def settings_label(settings: BaseModel) -> str:
    """``key=value`` of every setting, defaults included, sorted, joined with ``,`` (lists joined with ``+``)."""
    dumped = settings.model_dump(mode="json")
    return ",".join(f"{k}={flat(dumped[k])}" for k in sorted(dumped)) or "none"


def changed_settings(settings: BaseModel) -> dict[str, str]:
    """The settings that differ from their model's defaults, in field order, as flat strings."""
    return {k: flat(v) for k, v in settings.model_dump(mode="json", exclude_defaults=True).items()}


def name_part(key: str, value: str) -> str:
    """A changed setting in a metric name: ``orders2``, a switched-on flag ``shuffle``, off ``no-shuffle``."""
    return {"True": key, "False": f"no-{key}"}.get(value, f"{key}{value}").replace("_", "")


def flat(value: object) -> str:
    """A setting's value as one string (a list joined with ``+``)."""
    return "+".join(map(str, value)) if isinstance(value, list) else str(value)
