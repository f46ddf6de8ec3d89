"""Small helpers shared by the perturbation checks (pure)."""

from __future__ import annotations

from typing import Mapping

from tribunal.core.hypothesis import Hypothesis

Aliases = Mapping[str, frozenset[str]]


def norm(text: str) -> str:
    """Lower case, runs of white space as one space."""
    return " ".join(text.lower().split())


def known_name(entity: str, text: str, aliases: Aliases) -> bool:
    """Is ``text`` the entity itself or one of its aliases?"""
    return norm(text) in {norm(entity), *(norm(a) for a in aliases.get(entity, ()))}


def same_relations(original: Hypothesis, perturbed: Hypothesis) -> list[str]:
    if tuple(map(norm, original.relations)) != tuple(map(norm, perturbed.relations)):
        return ["relations changed"]
    return []
