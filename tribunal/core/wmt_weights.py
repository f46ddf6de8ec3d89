"""The WMT MQM weight of one error, from its category and severity: the one rule every MQM score uses.

Freitag et al. (2021), "Experts, Errors, and Context", TACL, as applied in the WMT MQM releases:
non-translation 25, major 5, minor 1, minor fluency/punctuation 0.1, neutral 0; critical (where a scheme
has it) 25. WMT23's releases add two categories that cost nothing: ``source issue`` (an error of the source,
not of the translation) and ``accuracy/creative reinterpretation`` (a liberty that keeps the meaning).
With these, the weights reproduce WMT23's published segment scores from its rating files, and TED MQM's
averaged scores from its annotations (whose ``Source error`` does count: another category, and the
releases agree with it; ``tests/programs/test_wmt_weights.py`` checks both on the real files).

Categories are matched case-insensitively; a non-translation is recognised by the word anywhere in the
category, whatever its spelling around it (``Non-translation!`` in WMT's files, ``non-translation`` in
tribunal's own errors, ``accuracy/non-translation``). GEMBA-MQM's own scheme is not this one
(:mod:`tribunal.programs.mqm.scoring`).
"""

from __future__ import annotations

NON_TRANSLATION_WEIGHT = 25.0
MAJOR_WEIGHT = 5.0
MINOR_WEIGHT = 1.0
MINOR_PUNCTUATION_WEIGHT = 0.1
SEVERITY_WEIGHTS = {"neutral": 0.0, "minor": MINOR_WEIGHT, "major": MAJOR_WEIGHT, "critical": NON_TRANSLATION_WEIGHT}
UNPENALISED_CATEGORIES = frozenset({"source issue", "accuracy/creative reinterpretation"})
PUNCTUATION = "fluency/punctuation"


def is_non_translation(category: str) -> bool:
    """Whether a category names a non-translation (any case, any punctuation around the word)."""
    return "non-translation" in category.lower()


def wmt_weight(category: str, severity: str) -> float:
    """The penalty of one error: ``category`` as ``dimension/subcategory`` (or one word), ``severity`` by name.

    A severity outside minor / major / critical / neutral is a ``KeyError`` (readers check severities).
    """
    lowered, severity = category.strip().lower(), severity.strip().lower()
    if is_non_translation(lowered):
        return NON_TRANSLATION_WEIGHT
    if lowered in UNPENALISED_CATEGORIES:
        return 0.0
    if severity == "minor" and lowered == PUNCTUATION:
        return MINOR_PUNCTUATION_WEIGHT
    return SEVERITY_WEIGHTS[severity]


def wmt_penalty(errors: list[tuple[str, str]]) -> float:
    """``sum`` of :func:`wmt_weight` over ``(category, severity)`` pairs (the MQM score is its negative)."""
    return sum(wmt_weight(category, severity) for category, severity in errors)
