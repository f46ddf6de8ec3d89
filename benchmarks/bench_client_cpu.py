"""The client's CPU per LM call and how busy it keeps its call slots, as a user runs ``tribunal mt evaluate``.

Each run is the command line itself (``tribunal mt evaluate --no-track --no-cache ...``) in a child
process, against a loopback OpenAI-compatible peer (``tests/support/loopback.py`` answering with the
synthetic judge) in ANOTHER process, so the peer's CPU is not counted. Two workloads:

- ``cpu``: M-MAD paper preset, 200 rated zh-en items, 20 ms latency, 32 calls in flight. Reported:
  CPU per call of the whole process (user + system time of the child, from ``wait4``: start-up,
  data, judging, the analysis after the run) and of the judging loop alone (``getrusage`` in the
  child around ``judge_all``), over the calls the peer answered;
- ``slots``: the same preset, 600 items, 1 s +- 0.3 s latency, 128 calls in flight. Reported: slots
  busy over the active window (the peer's answer intervals, summed, over 128 x first arrival to last
  departure) and the tail (last time at least 90% of the slots were busy to the end); the in-flight
  timeline of every tree is drawn to one PNG (``--plot``).

Both also report the connections the client opened to the peer, the most threads alive at once and
the peak resident memory of the client's processes (every thread and process below the CLI, from
``/proc``, sampled every 50 ms), and the garbage collections while judging (each one a red band on the
timeline plot). ``--processes N`` runs ``mt evaluate --processes N``: CPU, threads and memory then
count every worker.

``--judging threads,async`` runs every tree on each judging path in turn (``mt evaluate --judging``),
interleaved, so both see the same machine load.

``--tree PATH`` (repeatable) runs the same workload on another checkout with that checkout's own
venv (``PATH/.venv/bin/python``, which imports ``tribunal`` from that checkout), one after the other
against fresh peers, so the code before a change can be measured side by side with the code after
it. The 1-minute load average before and after each run is printed: the machine may be shared.

    TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_client_cpu.py \\
        --workload cpu --tree /tmp/cpu-before --tree .
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Workload:
    items: int
    latency: float
    jitter: float
    concurrency: int


WORKLOADS = {"cpu": Workload(items=200, latency=0.02, jitter=0.0, concurrency=32),
             "slots": Workload(items=600, latency=1.0, jitter=0.3, concurrency=128)}


JUDGES = {"light": ("tests.support.mqm_fakes", "synthetic_judge"),
          "debate-heavy": ("tests.support.debate_heavy", "debate_heavy_judge")}


def serve(judge: str, latency: float, jitter: float, pipe, stop) -> None:
    """The peer process: answer until ``stop``, then send back (calls answered, answer intervals)."""
    import importlib

    sys.path.insert(0, str(REPO))
    from http.server import ThreadingHTTPServer

    from tests.support.loopback import loopback_server

    ThreadingHTTPServer.request_queue_size = 4096  # in the peer only: 1,024 clients connect at once at the start

    module, name = JUDGES[judge]
    responder = getattr(importlib.import_module(module), name)
    with loopback_server(responder, latency=latency, jitter=jitter) as (api_base, state):
        pipe.send(api_base)
        stop.wait()
        with state.lock:
            pipe.send((len(state.hits), list(state.intervals), state.connections))


def child(report: str, argv: list[str]) -> None:
    """In the measured process: the CLI itself, with the CPU time of its judging loop written to ``report``."""
    import resource
    import time

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    marks: dict[str, float] = {"interpreter_cpu": cpu()}  # the interpreter and site, before any import here
    from tribunal.eval.mt import judging

    def timed(original):
        def timed_judge_all(*args, **kwargs):  # patched before job.py imports them (older trees: by name)
            marks["start_cpu"], marks["start_wall"] = cpu(), time.time()
            try:
                return original(*args, **kwargs)
            finally:
                marks["end_cpu"], marks["end_wall"] = cpu(), time.time()
                import gc

                marks["cycles_after"] = gc.collect()  # the garbage cycles judging left (none are left on threads)

        return timed_judge_all

    judging.judge_all = timed(judging.judge_all)
    try:
        from tribunal.eval.mt import async_judging  # a tree from before --judging async has none
    except ImportError:
        pass
    else:
        async_judging.ajudge_all = timed(async_judging.ajudge_all)
        runners = getattr(async_judging, "RUNNERS", None)  # job.py and the workers pick a runner there
        if runners is not None:
            runners.update({"threads": judging.judge_all, "async": async_judging.ajudge_all})
    from tribunal.eval.mt import processes  # --processes: job.py reads judge_in_processes when it calls it

    processes.judge_in_processes = timed(processes.judge_in_processes)
    pauses: list[tuple[int, float, float]] = []  # (generation, start, seconds) of every collection
    started: dict[str, float] = {}

    def collection(phase: str, info: dict) -> None:
        if phase == "start":
            started["at"] = time.perf_counter()
        elif "at" in started:
            pauses.append((info["generation"], time.time(), time.perf_counter() - started.pop("at")))

    import gc
    import threading

    gc.callbacks.append(collection)
    threads = {"peak": 0}

    def count_threads() -> None:  # the most threads alive at once and the resident memory, sampled every 50 ms
        while True:
            alive, resident = tree_usage(os.getpid())  # with --processes, the workers' too
            threads["peak"] = max(threads["peak"], alive)
            threads["rss_kb"] = max(threads.get("rss_kb", 0), resident)
            time.sleep(0.05)

    threading.Thread(target=count_threads, daemon=True).start()
    from tribunal.cli import main

    marks["imported_cpu"] = cpu()
    sys.argv = ["tribunal", *argv]
    if os.environ.get("BENCH_YAPPI"):
        import yappi
        yappi.set_clock_type("cpu")
        yappi.start(builtins=True)
    try:
        main()
    finally:
        if os.environ.get("BENCH_YAPPI"):
            yappi.stop()
            yappi.get_func_stats().save(os.environ["BENCH_YAPPI"], type="pstat")
        marks["end_cpu_child"] = cpu()
        Path(report).write_text(json.dumps(marks | {"gc": pauses, "threads": threads["peak"], "rss_kb": threads.get("rss_kb", 0)}))


def tree_usage(pid: int) -> tuple[int, int]:
    """(threads, resident kB) of ``pid`` and every process below it, summed, from ``/proc``."""
    threads = resident = 0
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        children = [int(c) for task in Path(f"/proc/{pid}/task").iterdir()
                    for c in (task / "children").read_text().split()]
    except OSError:  # the process ended meanwhile
        return 0, 0
    for line in status.splitlines():
        if line.startswith("Threads:"):
            threads += int(line.split()[1])
        elif line.startswith("VmRSS:"):
            resident += int(line.split()[1])
    for child_pid in children:
        more_threads, more_resident = tree_usage(child_pid)
        threads, resident = threads + more_threads, resident + more_resident
    return threads, resident


def tree_python(tree: Path) -> str:
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


@dataclass(frozen=True)
class Profiling:
    """How to profile a measured run: py-spy raw stacks into ``pyspy`` (at ``rate`` Hz, only the GIL
    holder if ``gil``), and/or a yappi CPU-clock profile of every thread into ``yappi`` (pstats)."""

    pyspy: Path | None = None
    rate: int = 200
    gil: bool = False
    yappi: Path | None = None


def run_tree(tree: Path, workload: Workload, data: Path, cache: Path, judge: str,
             profiling: Profiling = Profiling(), judging: str | None = None, processes: int = 1) -> dict:
    """One CLI run of ``tree``'s code against a fresh peer: CPU figures and the peer's answer intervals.

    ``cache``: tribunal's cache folder (the parsed-data cache), the same for every run. ``profiling``:
    run the child under ``py-spy record`` (raw folded stacks) and/or yappi; its CPU figures then
    include the profiler's.
    """
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe()
    stop = context.Event()
    peer = context.Process(target=serve, args=(judge, workload.latency, workload.jitter, theirs, stop), daemon=True)
    peer.start()
    try:
        api_base = mine.recv()
        with tempfile.TemporaryDirectory() as scratch:
            report = Path(scratch) / "report.json"
            argv = ["mt", "evaluate", "--lp", "zh-en", "--data", str(data / "wmt23"), "--lm", "openai/bench-judge",
                    "--api-base", api_base, "--api-key-env", "TRIBUNAL_BENCH_KEY", "--no-cache", "--no-track",
                    "--preset", "paper", "--rated-only", "--limit", str(workload.items),
                    "--concurrency", str(workload.concurrency), "--timeout", "60", "--out", str(Path(scratch) / "out"),
                    *(["--judging", judging] if judging else []),
                    *(["--processes", str(processes)] if processes > 1 else [])]
            env = {**os.environ, "TRIBUNAL_BENCH_KEY": "loopback-peer-takes-any-key", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                   "TRIBUNAL_CACHE": str(cache), "DSPY_CACHEDIR": str(Path(scratch) / "dspy"), "PYTHONPATH": ""}
            # As on a user's machine, the warm-up run leaves bytecode behind: with PYTHONDONTWRITEBYTECODE
            # (set in some sandboxes) every run would compile tribunal's own modules again, about 0.1 s.
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            load_before = os.getloadavg()[0]
            with open(Path(scratch) / "stdout", "w+") as out, open(Path(scratch) / "stderr", "w+") as err:
                command = [tree_python(tree), __file__, "--child", str(report), "--", *argv]
                if profiling.pyspy is not None:
                    command = [shutil.which("py-spy") or "py-spy", "record", "-r", str(profiling.rate), "-f", "raw",
                               *(["--gil"] if profiling.gil else []), "-o", str(profiling.pyspy), "--", *command]
                if profiling.yappi is not None:
                    env["BENCH_YAPPI"] = str(profiling.yappi)  # read by child()
                process = subprocess.Popen(command,
                                           env=env, cwd=scratch, stdout=out, stderr=err)
                _, status, usage = os.wait4(process.pid, 0)  # the child's own CPU, not the peer's
                process.returncode = os.waitstatus_to_exitcode(status)
                out.seek(0), err.seek(0)
                printed, errors = out.read(), err.read()
            if process.returncode != 0:
                raise SystemExit(f"{tree}: the run failed ({process.returncode}):\n{errors[-3000:]}\n{printed[-2000:]}")
            marks = json.loads(report.read_text())
        stop.set()
        calls, intervals, connections = mine.recv()
    finally:
        stop.set()
        peer.join(timeout=10)
    return {"tree": str(tree) + (f" --judging {judging}" if judging else "")
            + (f" --processes {processes}" if processes > 1 else ""), "marks": marks, "rss_mb": usage.ru_maxrss / 1024, "calls": calls, "intervals": intervals, "summary": printed,
            "connections": connections,
            "cpu": usage.ru_utime + usage.ru_stime, "user": usage.ru_utime, "sys": usage.ru_stime,
            "load": (load_before, os.getloadavg()[0])}


def slots_busy(intervals: list[tuple[float, float]], slots: int) -> tuple[float, float, float]:
    """(busy fraction over the active window, window seconds, tail seconds below 90% busy at the end)."""
    import numpy as np

    starts = np.array([a for a, _ in intervals])
    ends = np.array([b for _, b in intervals])
    first, last = starts.min(), ends.max()
    window = last - first
    busy = float((ends - starts).sum() / (slots * window))
    times, level = in_flight(intervals)
    full = times[:-1][level[:-1] >= 0.9 * slots]
    tail = float(last - full.max()) if len(full) else window
    return busy, window, tail


def in_flight(intervals: list[tuple[float, float]]):
    """(event times, requests in flight from each event to the next), as a step function."""
    import numpy as np

    times = np.array([t for a, b in intervals for t in (a, b)])
    steps = np.array([s for _ in intervals for s in (1, -1)])
    order = np.argsort(times, kind="stable")
    return times[order], np.cumsum(steps[order])


def plot(runs: list[dict], slots: int, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(len(runs), 1, figsize=(11, 2.8 * len(runs)), sharex=True, squeeze=False)
    for axis, run in zip(axes[:, 0], runs):
        times, level = in_flight(run["intervals"])
        axis.step(times - times[0], level, where="post", linewidth=0.7)
        axis.axhline(slots, color="grey", linestyle="--", linewidth=0.7)
        for _generation, at, seconds in run["marks"].get("gc", []):  # the client's collections, as pauses
            if seconds >= 0.05:
                axis.axvspan(at - seconds - times[0], at - times[0], color="red", alpha=0.25, linewidth=0)
        busy, window, tail = slots_busy(run["intervals"], slots)
        axis.set_title(f"{run['tree']}: slots busy {busy:.3f} over {window:.1f} s, tail {tail:.1f} s", fontsize=9)
        axis.set_ylabel("calls in flight")
        axis.set_ylim(0, slots * 1.08)
    axes[-1, 0].set_xlabel("seconds since the first call")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[4:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", choices=[*WORKLOADS, "both"], default="cpu")
    parser.add_argument("--tree", action="append", type=Path, help="a checkout to run (repeatable; default: this one)")
    parser.add_argument("--judge", choices=list(JUDGES), default="light",
                        help="the peer's synthetic judge: light (few debates) or debate-heavy (every debate to its limit)")
    parser.add_argument("--profile", type=Path, help="a folder: profile each run with py-spy into it")
    parser.add_argument("--items", type=int, help="override the workload's item count")
    parser.add_argument("--concurrency", type=int, help="override the workload's calls in flight")
    parser.add_argument("--latency", type=float, help="override the peer's latency (seconds; no jitter then)")
    parser.add_argument("--jitter", type=float, help="with --latency: the peer's jitter (seconds, +-)")
    parser.add_argument("--profile-rate", type=int, default=200, help="py-spy samples per second (--profile)")
    parser.add_argument("--profile-gil", action="store_true", help="py-spy samples only the thread holding the GIL")
    parser.add_argument("--yappi", type=Path,
                        help="a folder: a yappi CPU-clock profile (pstats) of each run, all threads (needs yappi)")
    parser.add_argument("--judging", default=None,
                        help="comma-separated judging paths to run each tree with, interleaved (e.g. threads,async; "
                             "default: the tree's own default)")
    parser.add_argument("--processes", type=int, default=1,
                        help="mt evaluate --processes: worker processes (CPU, threads and memory then count them all)")
    parser.add_argument("--plot", type=Path, default=Path(tempfile.gettempdir()) / "client-cpu-inflight.png", help="the slots run's timeline")
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [REPO])]
    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    cache = Path(tempfile.mkdtemp(prefix="bench-client-cpu-cache-"))
    try:
        bench(args, trees, data, cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def bench(args, trees: list[Path], data: Path, cache: Path) -> None:
    for tree in trees:  # a user's second run finds the parsed-data cache warm: so does every timed run here
        for judging in (args.judging.split(",") if args.judging else [None]):
            run_tree(tree, Workload(items=2, latency=0.0, jitter=0.0, concurrency=4), data, cache, args.judge,
                     judging=judging)
    for name in (list(WORKLOADS) if args.workload == "both" else [args.workload]):
        workload = WORKLOADS[name]
        workload = Workload(args.items or workload.items,
                            workload.latency if args.latency is None else args.latency,
                            workload.jitter if args.latency is None else (args.jitter or 0.0),
                            args.concurrency or workload.concurrency)
        print(f"=== workload {name}: M-MAD paper, {workload.items} rated zh-en items, latency {workload.latency} "
              f"+- {workload.jitter} s, {workload.concurrency} calls in flight, --no-cache --no-track")
        runs = []
        paths = args.judging.split(",") if args.judging else [None]
        for tree, judging in [(tree, judging) for tree in trees for judging in paths]:
            label = f"{name}-{tree.name}" + (f"-{judging}" if judging else "")
            run = run_tree(tree, workload, data, cache, args.judge, Profiling(
                args.profile / f"{label}.txt" if args.profile else None, args.profile_rate,
                args.profile_gil, args.yappi / f"{label}.pstat" if args.yappi else None), judging, args.processes)
            whole = run["cpu"]
            marks, calls = run["marks"], max(run["calls"], 1)
            loop = marks["end_cpu"] - marks["start_cpu"]
            busy, window, tail = slots_busy(run["intervals"], workload.concurrency)
            print(f"--- {run['tree']}")
            print(f"calls {run['calls']}; whole process CPU {whole:.2f} s -> {1000 * whole / calls:.2f} ms per call; "
                  f"judging loop CPU {loop:.2f} s over {marks['end_wall'] - marks['start_wall']:.2f} s wall -> "
                  f"{1000 * loop / calls:.2f} ms per call; whole process user {run['user']:.2f} s, system {run['sys']:.2f} s")
            print(f"whole process CPU by stage: interpreter {marks['interpreter_cpu']:.2f} s, imports to the CLI "
                  f"{marks['imported_cpu'] - marks['interpreter_cpu']:.2f} s, CLI to the judging loop "
                  f"{marks['start_cpu'] - marks['imported_cpu']:.2f} s, judging loop {loop:.2f} s, after the loop "
                  f"{marks['end_cpu_child'] - marks['end_cpu']:.2f} s, exit {whole - marks['end_cpu_child']:.2f} s")
            print(f"slots busy {busy:.3f} over the active window {window:.1f} s; tail {tail:.1f} s; "
                  f"load average {run['load'][0]:.2f} before, {run['load'][1]:.2f} after")
            judging = [p for p in marks["gc"] if marks["start_wall"] <= p[1] <= marks["end_wall"]]
            full = [p[2] for p in judging if p[0] == 2]
            print(f"connections opened {run['connections']}; threads alive at most {marks.get('threads', 0)} "
                  f"(every process, from /proc); peak resident memory {marks.get('rss_kb', 0) / 1024:.0f} MB "
                  f"(every process, summed, sampled every 50 ms; the largest process {run['rss_mb']:.0f} MB)")
            print(f"garbage collection while judging{' (the parent process only)' if args.processes > 1 else ''}: {len(judging)} collections, {sum(p[2] for p in judging):.2f} s; "
                  f"{len(full)} of generation 2, longest {max(full, default=0):.3f} s; by generation " +
                  ", ".join(f"{g}: {sum(1 for p in judging if p[0] == g)} in "
                            f"{sum(p[2] for p in judging if p[0] == g):.2f} s" for g in (0, 1, 2)) +
                  f"; after judging, a full collection found {marks.get('cycles_after', 0):,} objects in garbage cycles")
            runs.append(run)
        if name == "slots":
            plot(runs, workload.concurrency, args.plot)
            print(f"in-flight timeline: {args.plot.resolve()}")


if __name__ == "__main__":
    main()
