"""The options several commands share, as their option dataclasses hold them: the LM options
(:class:`LMArgs`: ``--lm``, ``--api-base``, ``--api-key-env``, ``--cache``, ``--reasks``, ``--max-tokens``,
``--timeout``) and the tracking options (:class:`TrackingArgs`: ``--tracking-uri``, ``--no-track``,
``--experiment``). A command's dataclass inherits both and adds its own fields; :meth:`OptionArgs.of`
builds it from the command's parameters by name.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping, Optional, TypeVar

from tribunal.cli.common import tracking_settings
from tribunal.cli.lm_options import build_cli_lm, cli_lm_settings

Args = TypeVar("Args", bound="OptionArgs")


class OptionArgs:
    """A command's options as a dataclass."""

    @classmethod
    def of(cls: type[Args], parameters: Mapping[str, Any]) -> Args:
        """The dataclass of a command's ``parameters`` (its ``locals()``: the fields by name, the rest ignored)."""
        return cls(**{f.name: parameters[f.name] for f in fields(cls)})  # type: ignore[arg-type]


@dataclass
class TrackingArgs(OptionArgs):
    """Where the command's MLflow run goes, if anywhere."""

    tracking_uri: Optional[str]
    no_track: bool
    experiment: str

    def tracking_settings(self) -> Any:
        """The ``TrackingSettings`` of these options."""
        return tracking_settings(self.tracking_uri, self.no_track, self.experiment)


@dataclass
class LMArgs(OptionArgs):
    """The LM the command calls and its limits."""

    lm: Optional[str]
    api_base: Optional[str]
    api_key_env: Optional[str]
    cache: bool
    reasks: Optional[int]
    max_tokens: Optional[int]
    timeout: Optional[float]

    def lm_settings(self, temperature: float, model: Optional[str] = None, cache: Optional[bool] = None) -> Any:
        """The ``LMSettings`` of these options at ``temperature`` (``model`` for another role's LM on the same
        endpoint, ``cache`` to override ``--cache``); None without a model."""
        return cli_lm_settings(self.lm if model is None else model, self.api_base, temperature, self.api_key_env,
                               self.cache if cache is None else cache, self.reasks, self.max_tokens, self.timeout)

    def build_lm(self, temperature: float, model: Optional[str] = None, cache: Optional[bool] = None) -> Any:
        """The ``dspy.LM`` that :meth:`lm_settings` describes (None without a model)."""
        return build_cli_lm(self.lm if model is None else model, self.api_base, temperature, self.api_key_env,
                            self.cache if cache is None else cache, self.reasks, self.max_tokens, self.timeout)
