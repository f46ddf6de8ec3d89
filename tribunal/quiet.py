"""One output policy for every command: tribunal's own lines, nothing else, unless ``--verbose``.

stdout carries only what tribunal prints (tables, summaries, the signature, file paths, run ids),
so it can be piped and parsed; stderr carries tribunal's progress bars, notes and one-line errors.
What the libraries underneath print is noise to a user who did nothing wrong: DSPy's "Model metadata
refresh failed" warning, the optimizers' ``Average Metric`` lines, MIPROv2's INFO log and the
``print`` of "Going to sample between ...", MLflow's "Downloading artifacts" bar, alembic's
migrations, sentence-transformers' "Loading weights", LiteLLM's and httpx's logs, Python warnings.

While a command runs (:func:`command_output`), without ``--verbose``:

- ``sys.stdout`` and ``sys.stderr`` point at a sink, so ``print`` and tqdm bars from libraries go
  nowhere; tribunal's consoles write to the real streams (:func:`real_stdout`, :func:`real_stderr`);
- ``logging`` is disabled up to ERROR (tribunal reports failures itself, as one line, or counts them
  as unscored items with their reason) and Python warnings are ignored.

With ``--verbose`` the libraries log and warn as they do by default, and their ``print`` output goes
to stderr (stdout stays tribunal's). Worker processes (``mt evaluate --processes``) apply the same
policy around their body (:func:`worker_output`), told by :data:`VERBOSE_ENV`.

Used as a library (the MLflow scorers, the pyfunc model, the judging service), tribunal applies none of
this: the caller's streams, logging and warnings filters are theirs (:func:`filters_as_found`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import warnings
from typing import Any, Callable, Iterator, TextIO, TypeVar

T = TypeVar("T")

VERBOSE_ENV = "TRIBUNAL_VERBOSE"
"""Set to ``1`` for worker processes of a ``--verbose`` command (internal)."""

ENVIRONMENT_DEFAULTS = {
    # LiteLLM (and DSPy's model metadata) otherwise fetch a price list from GitHub at import: 16-18 s
    # offline and a warning; the bundled copy is what tribunal prices calls with anyway.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
}


class _State:
    verbose: bool = False
    stdout: TextIO | None = None
    stderr: TextIO | None = None


STATE = _State()


_SINK: list[TextIO] = []


def _sink() -> TextIO:
    """A text stream on the null device: it drops what it is given, and has a real file descriptor
    (libraries ask for ``fileno()``, e.g. Rich when a pipe closes)."""
    if not _SINK:
        _SINK.append(open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115  (kept open for the process)
    return _SINK[0]


def prepare_environment() -> None:
    """Environment every command runs with (a value the user set is kept)."""
    for name, value in ENVIRONMENT_DEFAULTS.items():
        if not os.environ.get(name):  # unset or empty
            os.environ[name] = value


def set_verbose(verbose: bool) -> None:
    """Record the global ``--verbose`` flag for the command about to run."""
    STATE.verbose = verbose


def real_stdout() -> TextIO:
    """The stream tribunal's own output goes to (the real stdout while a command runs)."""
    return STATE.stdout or sys.stdout


def real_stderr() -> TextIO:
    """The stream tribunal's progress, notes and errors go to (the real stderr while a command runs)."""
    return STATE.stderr or sys.stderr


@contextlib.contextmanager
def command_output(verbose: bool | None = None) -> Iterator[None]:
    """Apply the policy for the enclosed command body; everything is put back afterwards."""
    verbose = STATE.verbose if verbose is None else verbose
    saved = (STATE.stdout, STATE.stderr, sys.stdout, sys.stderr, logging.root.manager.disable,
             os.environ.get(VERBOSE_ENV))
    STATE.stdout, STATE.stderr = sys.stdout, sys.stderr
    os.environ[VERBOSE_ENV] = "1" if verbose else "0"
    with warnings.catch_warnings():
        if verbose:
            sys.stdout = STATE.stderr  # a library's print never lands among tribunal's lines
        else:
            sys.stdout = sys.stderr = _sink()
            logging.disable(logging.ERROR)
            warnings.simplefilter("ignore")
        try:
            yield
        finally:
            STATE.stdout, STATE.stderr, sys.stdout, sys.stderr, disabled, previous = saved
            logging.disable(disabled)
            if previous is None:
                os.environ.pop(VERBOSE_ENV, None)
            else:
                os.environ[VERBOSE_ENV] = previous


@contextlib.contextmanager
def worker_output() -> Iterator[None]:
    """The same policy in a worker process, around its body (told by :data:`VERBOSE_ENV`; its results
    travel by queue): put back afterwards, as :func:`command_output` puts it back."""
    with command_output(verbose=os.environ.get(VERBOSE_ENV) == "1"):
        yield


@contextlib.contextmanager
def filters_as_found() -> Iterator[None]:
    """Run tribunal's library code (a scorer's call, the pyfunc model's predict, the judging service) and put
    the caller's warnings filters back afterwards.

    tribunal itself sets no filter outside a command; but the libraries a call loads first (MLflow,
    numpy, pandas, scipy, LiteLLM) add filters of their own when imported, which would otherwise stay in
    the caller's process. Filters the caller sets from another thread meanwhile are not kept either:
    :func:`warnings.catch_warnings` saves and restores one list for the process.
    """
    with warnings.catch_warnings():
        yield


def leaves_filters_as_found(function: Callable[..., T]) -> Callable[..., T]:
    """``function`` run under :func:`filters_as_found`."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        with filters_as_found():
            return function(*args, **kwargs)

    return wrapper
