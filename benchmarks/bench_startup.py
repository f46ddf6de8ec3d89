"""Start-up time of the command line: ``tribunal --help`` and ``tribunal equiv --help`` as whole processes.

The tests check what keeps these fast (no heavy library imported for help); the seconds are
measured here, where the machine's load is visible: medians of ``--repeats`` runs after one warm-up.

    python benchmarks/bench_startup.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

COMMANDS = (["--help"], ["equiv", "--help"], ["mt", "evaluate", "--help"])


def seconds(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tribunal", *argv], capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    for argv in COMMANDS:
        seconds(argv)  # warm the bytecode cache
        runs = [seconds(argv) for _ in range(options.repeats)]
        print(f"tribunal {' '.join(argv):24} median {statistics.median(runs):.3f} s "
              f"(min {min(runs):.3f}, max {max(runs):.3f}, {options.repeats} runs)")


if __name__ == "__main__":
    main()
