"""A human rating of one cell (a system's output of one segment): the MQM errors marked in it."""

from __future__ import annotations

from tribunal.core.spans import Span

Rating = tuple[Span, ...] | None
"""The errors of one rated cell (:class:`~tribunal.core.spans.Span`: offsets, side, category, severity and the
rater's own ``score`` if given), or None where the cell is unrated."""
