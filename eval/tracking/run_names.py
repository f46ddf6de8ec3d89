"""Run names, descriptions and default output folders that tell configurations apart.

A run name carries what differs between configurations a user compares: the program (a tuned
program's name and version), the debate strategy or rubric, the LM and the data slice, e.g.
``M-MAD deliberation r3 | gpt-4o-mini | wmt23 zh-en x20``. The description (MLflow's
``mlflow.note.content``, shown on the run page) starts with the key metrics, then the full
reproducibility signature. Default output folders are named by the same configuration plus a
hash of its signature, so two configurations never write into each other's files.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from tribunal.eval.meta.statistics import key_metric_keys
from tribunal.eval.tracking.signature import text_hash
from tribunal.programs.local_models import QUALITY_NOTICE, mentions_bundled

DESCRIPTION_TAG = "mlflow.note.content"


def short_lm(model: str | None) -> str:
    """``openai/gpt-4o-mini`` -> ``gpt-4o-mini`` (the provider prefix rarely tells runs apart)."""
    return (model or "no-lm").rsplit("/", 1)[-1]


def join_name(*parts: Any) -> str:
    """Non-empty parts joined with `` | ``."""
    return " | ".join(str(p) for p in parts if p not in (None, ""))


def slug(text: str, limit: int = 80) -> str:
    """A file-name-safe version of ``text``."""
    return re.sub(r"[^A-Za-z0-9._=+-]+", "-", text).strip("-")[:limit] or "run"


def config_folder(root: str | Path, label: str, signature: str) -> Path:
    """``root/<label>-<hash of the signature>``: one folder per configuration."""
    return Path(root) / f"{slug(label)}-{text_hash(signature, 8)}"


def mt_program_label(config: Any) -> str:
    """Program and settings of an MT run: ``M-MAD deliberation r3 no-stage2`` or ``GEMBA-MQM``: the metric name,
    then the words its settings add (``JudgeSettings.run_label_parts``) that it does not hold already."""
    label = config.metric_name
    settings = config.program_settings()
    words = settings.run_label_parts() if settings is not None else []
    return " ".join([label, *[w for w in words if w not in label]])


def mt_run_name(config: Any, items: int, tuned: str | None = None) -> str:
    """``M-MAD consensus r3 | gpt-4o-mini | wmt23 zh-en x20`` (``tuned``: e.g. ``tuned v3``)."""
    data = f"{Path(config.data).name if config.data else 'data'} {config.lp} x{items}"
    roles = f"+{len(config.role_lms)} role LMs" if config.role_lms else ""
    return join_name(" ".join(b for b in (mt_program_label(config), tuned) if b), short_lm(config.lm.model) + roles, data)


def key_metrics(metrics: Mapping[str, float | None], keys: Iterable[str]) -> list[tuple[str, float]]:
    """``keys`` present in ``metrics``, in the given order."""
    return [(k, float(metrics[k])) for k in keys if metrics.get(k) is not None]


def description(title: str, signature: str | None, metrics: list[tuple[str, float]],
                notes: Iterable[str] = ()) -> str:
    """Markdown for the run page: key metrics first, then the signature and notes."""
    lines = [f"**{title}**", ""]
    if metrics:
        lines += ["| key metric | value |", "|---|---|"] + [f"| {k} | {v:.4g} |" for k, v in metrics]
        lines.append("")
    if signature:
        lines += ["Signature:", "", f"`{signature}`", ""]
    lines += [f"- {note}" for note in notes]
    return "\n".join(lines).strip() + "\n"


RUN_KEY_METRICS = ("span.mpp_f", "span.char_f1", "error_free.mcc", "judge_vs_human.kappa", "judge_vs_human.pearson",
                   "judge_vs_expected.accuracy", "judge_vs_expected.kappa", "dev_tuned_score", "dev_improvement",
                   "average", "scored", "unscored", "lm_calls", "wall_seconds")
"""The key metrics after the statistics', for every kind of run (a run logs the ones of its kind)."""


def key_metric_order() -> tuple[str, ...]:
    """Every key metric of a run, in order: the declared statistics' first (read when called, so a
    statistic registered after import is among them), then :data:`RUN_KEY_METRICS`."""
    return key_metric_keys() + RUN_KEY_METRICS


def key_metric_names(names: Any, limit: int | None = None) -> list[str]:
    """``names`` ordered key metrics first (in :func:`key_metric_order`), then alphabetically."""
    present, order = set(names), key_metric_order()
    ordered = [k for k in order if k in present] + sorted(present - set(order))
    return ordered[:limit] if limit else ordered


def describe_run(client: Any, run_id: str, title: str | None = None) -> None:
    """Give a finished run a description (unless it has one): key metrics first, then its signature."""
    run = client.get_run(run_id)
    tags = run.data.tags
    if DESCRIPTION_TAG in tags:
        return
    metrics = run.data.metrics
    shown = key_metrics(metrics, key_metric_names(metrics, 8))
    client.set_tag(run_id, DESCRIPTION_TAG, description(title or run.info.run_name, tags.get("tribunal.signature"), shown,
                                                        run_notes(run.data.params)))


def run_notes(params: Mapping[str, Any]) -> list[str]:
    """Notes every description of such a run carries: a run on the bundled 135M model says what it is worth."""
    return [QUALITY_NOTICE[0].upper() + QUALITY_NOTICE[1:] + "."] if mentions_bundled(dict(params)) else []
