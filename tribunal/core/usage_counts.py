"""What one item's LM calls cost, as the usage meter counts it (``tribunal.runner.meter.UsageMeter.summary``)."""

from __future__ import annotations

from tribunal.core.json_record import JsonRecord


class UsageCounts(JsonRecord):
    """Counts per model (per role for ``reask_kinds``: ``{kind: n}``); a count not given is not dumped."""

    calls: dict[str, int] = {}
    failed: dict[str, int] = {}
    cached: dict[str, int] = {}
    reasks: dict[str, int] = {}
    reask_kinds: dict[str, int] = {}
    runaways: dict[str, int] = {}
    prompt_tokens: dict[str, int] = {}
    completion_tokens: dict[str, int] = {}
    model_prompt_tokens: dict[str, int] = {}
    model_completion_tokens: dict[str, int] = {}

    def counts(self) -> dict[str, dict[str, int]]:
        """The counts as the meter's summary dict (what ``add_summaries`` adds up)."""
        return {name: value for name, value in self.model_dump().items() if isinstance(value, dict)}
