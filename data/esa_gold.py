"""ESA gold scores by name: mt-metrics-eval's ESA score files and the ESA campaign's passes.

- mt-metrics-eval names its ESA scores ``esa`` (WMT24, some WMT25 releases) and ``esa-human1``,
  ``esa-human2`` (WMT25's two passes): ``human-scores/LP.NAME.seg.score`` (0-100, ``None`` where not
  rated).
- The ESA campaign on WMT23 en-de (Kocmi et al. 2024; ``$TRIBUNAL_DATA/esa-wmt23``) ships
  ``LP.PROTOCOL.seg.score`` files aligned with WMT23's en-de layout (``ESA-1``, ``ESA-2``, ``MQM-1``,
  ``GEMBA2``, ...) beside its raw Appraise exports; :data:`CAMPAIGN_FILES` says which export and
  batch file hold each protocol's annotations (:mod:`tribunal.data.esa_campaign` reads them).

``--human esa`` asks for an ESA gold without naming the file: the first of :data:`ESA_NAMES` a pair
has, in its own ``human-scores/`` first, then in the extra folders given (e.g. the campaign's).
"""

from __future__ import annotations

from pathlib import Path

from tribunal.data.esa_campaign import Campaign, read_campaign
from tribunal.data.errors import DataFormatError

ESA_ALIAS = "esa"
ESA_NAMES = ("esa", "esa-human1", "ESA-1")
"""What ``--human esa`` resolves to, in order of preference."""

CAMPAIGN_FILES: dict[str, tuple[str, str]] = {
    "ESA-1": ("240315rc5ESA.scores.csv", "batches_wmt23_en-de_esa.json"),
    "ESA-2": ("240520rc6ESA.scores.csv", "batches_wmt23_en-de_esa.json"),
    "ESA-IAA": ("240521rc6ESA.scores.csv", "batches_wmt23_en-de_esa.json"),
    "MQM-1": ("240315rc5MQM.scores.csv", "batches_wmt23_en-de_mqm.json"),
    "MQM-IAA": ("240521rc6MQM.scores.csv", "batches_wmt23_en-de_mqm.json"),
    "ESAAI-1": ("240315rc5GEMBA.scores.csv", "batches_wmt23_en-de_esa.json"),
    "ESAAI-2": ("240520rc6GEMBA.scores.csv", "batches_wmt23_en-de_esa.json"),
}
"""The campaign's protocols with raw annotations (spans) here: (score export, batch file under ``data/``).
The GEMBA-only protocol ``LLM`` needs a batch file the campaign folder does not hold: only its score file."""


def score_file(lp: str, name: str, folders: list[Path]) -> Path | None:
    """The first ``LP.NAME.seg.score`` among ``folders``, None when none has it."""
    for folder in folders:
        path = folder / f"{lp}.{name}.seg.score"
        if path.is_file():
            return path
    return None


def resolve_human(lp: str, name: str, folders: list[Path]) -> str:
    """The gold name ``name`` stands for: itself, or for ``esa`` the first of :data:`ESA_NAMES` present."""
    if name != ESA_ALIAS or score_file(lp, name, folders):
        return name
    return next((n for n in ESA_NAMES if score_file(lp, n, folders)), name)


def campaign_protocol(folder: str | Path, protocol: str) -> Campaign:
    """The raw annotations of one campaign protocol (``ESA-1``, ``MQM-1``...) in ``folder``."""
    folder = Path(folder)
    if protocol not in CAMPAIGN_FILES:
        raise DataFormatError(folder, None, f"no raw annotations for protocol {protocol!r} "
                                            f"(have {', '.join(CAMPAIGN_FILES)})")
    scores, batches = CAMPAIGN_FILES[protocol]
    return read_campaign(folder / scores, folder / "data" / batches)
