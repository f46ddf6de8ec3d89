"""One rate pacer per provider model of the process: every LM calling the same model at the same endpoint
waits on the same one (:mod:`tribunal.core.rate_pacer`).

A provider's limits are per model (and account), not per LM object: a run's roles on one model, the
LMs a worker thread copies, a re-ask pass, share its budget, and what the provider's headers report
to one is known to all. ``--rpm`` / ``--tpm`` (``LMSettings.rpm`` / ``tpm``) set the pacer's own
limits each time an LM is built for it (the latest settings win: one command sets one value).
"""

from __future__ import annotations

import threading
from typing import Any

from tribunal.core.rate_pacer import RatePacer

_lock = threading.Lock()
_pacers: dict[tuple[str, str], RatePacer] = {}  # (model, endpoint) -> its pacer


def pacer_for(settings: Any) -> RatePacer:
    """The pacer of ``settings``' model at its endpoint, its limits set to ``settings.rpm`` / ``tpm``."""
    key = (settings.model, settings.api_base or "")
    with _lock:
        pacer = _pacers.get(key)
        if pacer is None:
            pacer = _pacers[key] = RatePacer()
    pacer.configure(settings.rpm, settings.tpm)
    return pacer
