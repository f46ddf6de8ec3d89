"""ThreadTransport: each calling thread its own connection, reused between its calls; close() closes all."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler

from dspy._vendor.lm15.transports import TransportRequest

from tests.support.serving import serving
from tribunal.programs.thread_transport import ThreadTransport


def _handler(ports: list[int], paths: list[str] | None = None) -> type[BaseHTTPRequestHandler]:
    """A JSON server noting each request's client port (its connection) and, if asked, its path."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            ports.append(self.client_address[1])  # the client's port names its connection
            if paths is not None:
                paths.append(self.path)  # a forward proxy sees the absolute URI of the target
            data = json.dumps({"ok": True}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _post(transport: ThreadTransport, url: str) -> bytes:
    with transport.stream(TransportRequest("POST", url, [("Content-Type", "application/json")], b"{}")) as response:
        return b"".join(response)


def test_each_thread_keeps_its_own_connection_and_close_closes_every_one():
    ports: list[int] = []
    with serving(_handler(ports)) as base:
        url = f"{base}/chat/completions"
        transport = ThreadTransport()
        seen: dict[str, list[int]] = {}
        own: list = []  # each thread's transport, kept alive past its thread to see close() reach it

        def calls(name: str) -> None:
            for _ in range(3):
                assert json.loads(_post(transport, url)) == {"ok": True}
                seen.setdefault(name, []).append(ports[-1])
            own.append(transport._local.transport)

        threads = [threading.Thread(target=calls, args=(f"t{k}",)) for k in range(3)]
        for thread in threads:  # one after another: ports[-1] is the thread's own request
            thread.start()
            thread.join(timeout=10)
        assert all(len(set(p)) == 1 for p in seen.values())  # a thread's calls reuse its one connection
        assert len({p[0] for p in seen.values()}) == 3  # and no thread uses another's
        transport.close()
        assert len(own) == 3 and all(t._closed for t in own)


def test_calls_holding_the_same_call_slot_share_its_connection_whatever_their_thread():
    from tribunal.core.call_slots import CallSlots

    ports: list[int] = []
    with serving(_handler(ports)) as base:
        url = f"{base}/chat/completions"
        transport, slots = ThreadTransport(), CallSlots(2)
        by_slot: dict[int, list[int]] = {}

        def call() -> None:
            with slots.hold() as number:
                assert json.loads(_post(transport, url)) == {"ok": True}
                by_slot.setdefault(number, []).append(ports[-1])

        held = [slots.acquire(), slots.acquire()]
        for k in range(6):  # six threads, one after another, each on the slot given back for it
            slots.release(held[k % 2])
            thread = threading.Thread(target=call)
            thread.start()
            thread.join(timeout=10)
            assert slots.acquire() == held[k % 2]
        assert len(by_slot) == 2 and all(len(p) == 3 and len(set(p)) == 1 for p in by_slot.values())
        assert len({p[0] for p in by_slot.values()}) == 2  # one connection per slot, reused by every thread
        transport.close()


def test_the_proxy_is_settled_once_from_the_environment(monkeypatch):
    from tribunal.programs.thread_transport import proxy_settings

    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy",
                 "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert proxy_settings("http://127.0.0.1:8000/v1") == {"trust_env": False}
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    assert proxy_settings("http://judge.example/v1") == {"proxy": "http://proxy.example:3128"}
    assert proxy_settings("https://judge.example/v1") == {"trust_env": False}  # HTTPS_PROXY not set
    monkeypatch.setenv("NO_PROXY", "judge.example")
    assert proxy_settings("http://judge.example/v1") == {"trust_env": False}
    assert proxy_settings(None) == {}  # target unknown: lm15 reads the environment per request


def test_requests_go_through_the_proxy_without_reading_the_environment_per_request(monkeypatch):
    import dspy._vendor.lm15.transports._proxy as lm15_proxy

    paths: list[str] = []
    with serving(_handler([], paths)) as proxy:
        for name in ("NO_PROXY", "no_proxy", "http_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", proxy)
        target = "http://judge.invalid/v1"
        transport = ThreadTransport(api_base=target)
        monkeypatch.delenv("HTTP_PROXY")  # read when the transport was built, not per request

        def no_lookup():
            raise AssertionError("the environment was read for a request")

        monkeypatch.setattr(lm15_proxy, "getproxies", no_lookup)
        for _ in range(2):
            assert json.loads(_post(transport, f"{target}/chat/completions")) == {"ok": True}
        transport.close()
    assert paths == ["http://judge.invalid/v1/chat/completions"] * 2


def test_a_direct_target_never_reads_the_environment_per_request(monkeypatch):
    import dspy._vendor.lm15.transports._proxy as lm15_proxy

    ports: list[int] = []
    with serving(_handler(ports)) as base:
        for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.delenv(name, raising=False)
        transport = ThreadTransport(api_base=base)

        def no_lookup():
            raise AssertionError("the environment was read for a request")

        monkeypatch.setattr(lm15_proxy, "getproxies", no_lookup)
        assert json.loads(_post(transport, f"{base}/chat/completions")) == {"ok": True}
        transport.close()
