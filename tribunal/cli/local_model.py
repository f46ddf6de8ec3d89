"""The local model's servers end with the command that started them, which says what their answers are worth.

:func:`local_model_scope` wraps every command (:func:`tribunal.cli.main`): servers that
``--lm local`` or ``--lm local/PATH.gguf`` started during the command are stopped when it ends,
normally, on an error or on Ctrl-C (``atexit`` stops them too, and each server's watchdog ends it if
tribunal is killed). A command that used the bundled 135M model ends with one line saying that its
judgments say nothing about quality.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from tribunal.cli.console import console
from tribunal.programs import local_models


@contextlib.contextmanager
def local_model_scope() -> Iterator[None]:
    """Stop the local servers started inside; note the bundled model's worth if it answered."""
    running, used = tuple(local_models.started()), len(local_models.uses())
    local_models.forget_deaths()
    try:
        yield
    finally:
        local_models.stop_started(keep=running)
        if any(local_models.is_bundled(model) for model in local_models.uses()[used:]):
            console(stderr=True).print(f"[yellow]note:[/yellow] {local_models.QUALITY_NOTICE}", highlight=False, soft_wrap=True)
