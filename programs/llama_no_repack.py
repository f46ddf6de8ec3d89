"""llama.cpp without weight repacking: the safer configuration a crashed local server is restarted with.

llama.cpp repacks some quantized weights (q4_0, q4_1, q8_0, ...) into "extra buffer types" laid out
for the CPU's wider instructions (AMX on recent Xeons, AVX-512 and others). On an AMX CPU inside a VM
that repacked path segfaults on the first request (llama.cpp issue 20824). llama-cpp-python's server
has no setting for it, but its binding exposes the C field ``llama_model_params.use_extra_bufts``;
:func:`turn_off_repacking` makes every model the server loads start with it false. It runs inside
the server's own process (the watchdog of :mod:`tribunal.programs.local_server`), before the server
module builds its model; answers stay the same, only the weights' memory layout changes.
"""

from __future__ import annotations

import importlib.util

MARK_OFF = "tribunal: llama.cpp weight repacking is off (use_extra_bufts=false)"
MARK_UNAVAILABLE = "tribunal: this llama-cpp-python cannot turn weight repacking off (no use_extra_bufts field)"


def turn_off_repacking() -> str:
    """Patch llama-cpp-python's model defaults so ``use_extra_bufts`` is false; the line that says what happened."""
    if importlib.util.find_spec("llama_cpp") is None:
        return MARK_UNAVAILABLE
    import llama_cpp.llama_cpp as native  # optional extra: llama_cpp

    if "use_extra_bufts" not in {name for name, *_ in native.llama_model_params._fields_}:
        return MARK_UNAVAILABLE
    original = native.llama_model_default_params

    def defaults_without_repacking():
        params = original()
        params.use_extra_bufts = False
        return params

    native.llama_model_default_params = defaults_without_repacking  # llama.Llama reads it at call time
    return MARK_OFF
