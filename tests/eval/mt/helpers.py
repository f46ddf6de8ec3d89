"""Shared setup of the runner tests (imported by the test modules; not collected)."""

from __future__ import annotations

import os
from pathlib import Path

from tribunal.eval.mt.config import EvaluateConfig
from tribunal.programs.lm import LMSettings

KEY_ENV = "TRIBUNAL_LOOPBACK_API_KEY"
SECRET = "sk-loopback-0123456789-secret"


def wmt23() -> Path:
    return Path(os.environ.get("TRIBUNAL_DATA", Path(__file__).resolve().parents[4] / "shared" / "data")) / "wmt23"


def loopback_config(api_base: str, out: Path, **overrides) -> EvaluateConfig:
    lm = LMSettings(model="openai/loopback-judge", api_base=api_base, api_key_env=KEY_ENV, num_retries=2,
                    timeout=0.5, cache=False)
    fields = dict(data=wmt23(), lp="zh-en", lm=lm, limit=12, demos=0, concurrency=4, out=out)
    return EvaluateConfig(**(fields | overrides))
