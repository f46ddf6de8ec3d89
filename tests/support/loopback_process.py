"""A loopback chat-completions server in its own process, so a test can kill it like a crashed replica."""

from __future__ import annotations

import multiprocessing


def _serve(hits, port_pipe, stop, latency: float) -> None:
    from tests.support.loopback import loopback_server
    from tests.support.mqm_fakes import synthetic_judge

    with loopback_server(synthetic_judge, latency=latency) as (api_base, state):
        port_pipe.send(api_base)
        while not stop.wait(0.01):
            hits.value = len(state.hits)


class Endpoint:
    """``api_base`` of a server answering with the synthetic judge; ``hits.value`` counts its calls."""

    def __init__(self, latency: float = 0.02):
        context = multiprocessing.get_context("spawn")
        self.hits, self.stop = context.Value("i", 0), context.Event()
        receive, send = context.Pipe(duplex=False)
        self.process = context.Process(target=_serve, args=(self.hits, send, self.stop, latency), daemon=True)
        self.process.start()
        if not receive.poll(60):
            self.process.kill()
            raise RuntimeError("the loopback endpoint process did not start")
        self.api_base = receive.recv()

    def kill(self) -> None:
        """SIGKILL: open connections drop, new ones are refused."""
        self.process.kill()
        self.process.join(timeout=5)

    def close(self) -> None:
        if not self.process.is_alive():
            return  # killed: its stop event may still be locked by the dead process
        self.stop.set()
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.kill()
