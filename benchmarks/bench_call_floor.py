"""The CPU floor of one LM call: plain DSPy against tribunal's LM and adapter, one call at a time.

``bench_client_cpu.py`` measures a whole ``tribunal mt evaluate`` run. This one isolates a single
predictor call, the unit every judge is made of, to tell how much of a call's CPU is DSPy's own
path (signature to prompt, the request, the answer parsed back) and how much tribunal adds:

- ``plain DSPy``: ``dspy.Predict`` of M-MAD's accuracy agent with the paper preset's four fixed
  demos, ``dspy.LM("openai/...", api_base=...)`` (DSPy's own engine) and DSPy's ``ChatAdapter``;
- ``tribunal LM + adapter``: the same predictor and demos, tribunal's LM (``build_lm``: its engine
  for an OpenAI-compatible server, endpoint-keyed calls, call records) and tolerant chat adapter.

Both send the same prompts to a loopback peer in another process (``tests/support/loopback.py``
answering with the synthetic judge, no latency), so only the client's CPU is counted; the caches
are off. Reported: CPU per call (user + system of this process over the timed calls).

    TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_call_floor.py --calls 400
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def items(data: Path, count: int) -> list[dict[str, str]]:
    """``count`` zh-en (source, translation) inputs from WMT23, cycling over the systems."""
    sources = (data / "wmt23" / "sources" / "zh-en.txt").read_text(encoding="utf-8").splitlines()
    systems = sorted((data / "wmt23" / "system-outputs" / "zh-en").glob("*.txt"))
    outputs = [path.read_text(encoding="utf-8").splitlines() for path in systems]
    chosen = []
    for k in range(count):
        segment, system = k % len(sources), outputs[k % len(outputs)]
        chosen.append(dict(source=sources[segment], translation=system[segment],
                           source_lang="Chinese", target_lang="English"))
    return chosen


def cpu_per_call(predictor, lm, adapter, inputs: list[dict[str, str]], warm_up: int = 5) -> float:
    """Milliseconds of this process's CPU per call, over ``inputs`` after ``warm_up`` untimed calls."""
    import dspy

    with dspy.context(lm=lm, adapter=adapter):
        for values in inputs[:warm_up]:
            predictor(**values)
        start = time.process_time()
        for values in inputs[warm_up:]:
            predictor(**values)
        return 1000 * (time.process_time() - start) / (len(inputs) - warm_up)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=400, help="timed calls per run")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each, alternating")
    args = parser.parse_args()

    import dspy

    from benchmarks.bench_client_cpu import serve
    from tribunal.programs.answers.adapter import TolerantChatAdapter
    from tribunal.programs.lm import LMSettings, build_lm
    from tribunal.programs.mqm.fixed_demos import mmad_demos
    from tribunal.programs.mqm.mmad import MMADConfig
    from tribunal.signatures.mqm.dimensions import ASSESSORS

    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe()
    stop = context.Event()
    peer = context.Process(target=serve, args=("light", 0.0, 0.0, theirs, stop), daemon=True)
    peer.start()
    try:
        api_base = mine.recv()
        demos = mmad_demos(MMADConfig(preset="paper"), data / "mqm-ted", "zh-en", 4)["accuracy"]
        predictor = dspy.Predict(ASSESSORS["accuracy"])
        predictor.demos = demos
        inputs = items(data, args.calls + 5)
        plain = dspy.LM("openai/bench-judge", api_base=api_base, api_key="loopback-peer-takes-any-key", cache=False,
                        num_retries=0)
        ours = build_lm(LMSettings(model="openai/bench-judge", api_base=api_base, cache=False, num_retries=0))
        runs = {"plain DSPy (dspy.LM, ChatAdapter)": (plain, dspy.ChatAdapter()),
                "tribunal LM + adapter": (ours, TolerantChatAdapter())}
        figures: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, (lm, adapter) in runs.items():
                figures[name].append(cpu_per_call(predictor, lm, adapter, inputs))
        print(f"M-MAD accuracy agent, 4 fixed demos, {args.calls} calls a run, one at a time, loopback peer, no cache")
        for name, values in figures.items():
            print(f"{name}: {min(values):.2f} ms per call (runs: {', '.join(f'{v:.2f}' for v in values)})")
    finally:
        stop.set()
        peer.join(timeout=10)


if __name__ == "__main__":
    main()
