"""BLAS on one thread while the meta-evaluation's own thread pools spread the work over the cores.

The tables and significance draws run their jobs (a metric on a pair, a task) on a thread pool
sized to the machine, and each job's matrix products are small to middling. Letting OpenBLAS
start its own threads inside every job oversubscribes the cores, and its idle threads spin while
they wait: on the 2-core machine this was measured on, shared with other jobs, the WMT23 table
of 32 metrics with ``--significance 1000`` took 133 s and 26 s of CPU with OpenBLAS's default
threads against 16 s and 2.4 s with one (the table alone: 2.4 s of CPU against 0.9 s).
"""

from __future__ import annotations

import contextlib
from typing import Iterator
from threadpoolctl import threadpool_limits


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Limit BLAS (OpenBLAS, MKL, ...) to one thread for the enclosed block (process-wide)."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield
