"""How the command line writes numbers: a fixed number of decimals, ``n/a (reason)`` when undefined.

Scores, correlations, shares and rates get :data:`DECIMALS` decimals (``0.6330``, never
``0.6330000000000001``); counts are integers; p-values keep their magnitude (``3.9e-09``); a value
that is not defined (a precision with nothing predicted, a correlation over one system) reads
``n/a (why)``, never ``nan`` in one place and ``0.0000`` in another.
"""

from __future__ import annotations

import math
from typing import Any

DECIMALS = 4


def undefined(value: Any) -> bool:
    """True for None, NaN and infinities."""
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def number(value: Any, reason: str | None = None, decimals: int = DECIMALS) -> str:
    """A score or rate with ``decimals`` decimals; ``n/a`` (with ``reason``) when undefined."""
    if undefined(value):
        return f"n/a ({reason})" if reason else "n/a"
    return f"{float(value):.{decimals}f}"


def count(value: Any) -> str:
    """A count as an integer (``21``, not ``21.0000``)."""
    if undefined(value):
        return "n/a"
    return str(int(round(float(value))))


def p_value(value: Any) -> str:
    """A p-value: :data:`DECIMALS` decimals, or two significant digits below ``10**-DECIMALS``."""
    if undefined(value):
        return "n/a"
    value = float(value)
    return f"{value:.{DECIMALS}f}" if value == 0 or value >= 10 ** -DECIMALS else f"{value:.1e}"


def seconds(value: float) -> str:
    """A duration: ``12.3 s``."""
    return f"{value:.1f} s"


def money(value: Any) -> str:
    """US dollars with four decimals (calls cost fractions of a cent)."""
    return "unknown" if undefined(value) else f"${float(value):.4f}"
