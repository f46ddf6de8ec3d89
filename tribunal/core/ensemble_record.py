"""What a sampled ensemble kept of its K judgments of one item (``tribunal.eval.mt.ensemble.combined``)."""

from __future__ import annotations

from tribunal.core.json_record import JsonRecord


class EnsembleRecord(JsonRecord):
    """The K scores (None: an unusable sample), the rule that combined them, its score, what it kept and dropped,
    the sample whose errors the item reports (``chosen``) and the spread of the usable scores."""

    samples: int
    rule: str
    score: float
    scores: list[float | None]
    kept: list[int]
    usable: int
    dropped: list[int]
    chosen: int
    std: float
    min: float
    max: float
