"""The slots of the real llama.cpp server (llama-cpp-python's, which tribunal runs), found out as a user's run would.

llama-cpp-python's server exposes neither ``/props`` nor ``/slots`` (llama-server's routes), so a run
that is not told (``--server-slots``) learns nothing from it; the probe finds that it answers one
request at a time, which is what tribunal assumes of its own local server.
"""

from __future__ import annotations

import pytest

from tribunal.programs import server_slots
from tribunal.programs.local_models import bundled_gguf, model_alias
from tribunal.programs.server_slots import PROBE, discover, from_props, from_slots

pytestmark = [pytest.mark.real_model, pytest.mark.slow]


def test_the_probe_finds_that_the_local_server_serves_one_request_at_a_time(local_model, monkeypatch):
    monkeypatch.delenv(server_slots.KNOWN_ENV, raising=False)
    api_base = local_model.server.api_base  # the server itself, not the counting proxy in front of it
    assert from_props(api_base) is None and from_slots(api_base) is None
    nothing = discover(api_base, f"openai/{model_alias(bundled_gguf())}")
    assert nothing.slots is None and "no /props or /slots" in nothing.source
    probed = discover(api_base, f"openai/{model_alias(bundled_gguf())}", setting=PROBE, timeout=300)
    assert probed.slots == 1, probed.source
    local = discover(api_base, local=True)
    assert local.slots == server_slots.LOCAL_SERVER_SLOTS == 1
