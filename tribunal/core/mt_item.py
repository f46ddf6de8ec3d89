"""One MT item to judge: a source and its translation (and the reference and context the judge is shown)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class JudgeItem:
    key: str
    source: str
    translation: str
    reference: str | None = None
    context: tuple[tuple[str, str], ...] | None = None
    """(source, translation) of the segments before this one in its document; None: not shown."""

    def extras(self) -> dict[str, str | list[dict[str, str]]]:
        """The judge's optional inputs for this item (``{}`` when the run uses none)."""
        extras: dict[str, str | list[dict[str, str]]] = {}
        if self.reference is not None:
            extras["reference"] = self.reference
        if self.context is not None:
            extras["context"] = [{"source": s, "translation": t} for s, t in self.context]
        return extras
