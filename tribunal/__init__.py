"""tribunal: LLM judges as DSPy programs, meta-evaluated exactly, tracked in MLflow.

The package itself exports the run summary's reader: ``tribunal.read_run_summary(path)`` returns
the typed :class:`~tribunal.core.run_summary.RunSummary` of a run's ``summary.json``.
"""
from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["RunSummary", "read_run_summary"]


def read_run_summary(path: Any) -> Any:
    """The typed summary (:class:`tribunal.core.run_summary.RunSummary`) of a run's ``summary.json``, or of
    the output folder that holds one (see :func:`tribunal.core.run_summary.read_run_summary`)."""
    from tribunal.core.run_summary import read_run_summary as read  # startup: kept out of `tribunal --help`

    return read(path)


def __getattr__(name: str) -> Any:
    if name == "RunSummary":
        from tribunal.core.run_summary import RunSummary  # startup: kept out of `tribunal --help`

        return RunSummary
    raise AttributeError(f"module 'tribunal' has no attribute {name!r}")
