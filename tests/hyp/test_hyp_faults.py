"""``tribunal hyp``: a stored run cut short, a busy folder, the exit status of failed runs."""

from __future__ import annotations

import pytest

from tests.support.cli import assert_one_line_error, run_cli
from tribunal.errors import FolderBusy
from tribunal.data.folder_lock import folder_lock
from tribunal.eval.hyp.instance import load_instance
from tribunal.eval.hyp.run_job import RunSettings, run_workflow
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from tests.hyp.workflow_lm import scripted_responder

OFF = TrackingSettings(enabled=False)


def _lm(scripted):
    from collections import Counter

    calls = Counter()
    lm, _ = scripted.scripted_lm(scripted_responder(scripted, calls))
    return lm, calls


def _run(lm, out, reruns):
    settings = RunSettings(depths=[0], reruns=reruns, max_per_opening=1, threads=1)
    return run_workflow([load_instance()], settings, lm, {"model": "scripted/test"}, out, OFF)


def test_a_truncated_run_file_is_run_again_and_reported(scripted, tmp_path):
    lm, calls = _lm(scripted)
    _run(lm, tmp_path, 2)
    stored = tmp_path / "runs" / load_instance().id / "d0-r1.json"
    stored.write_text(stored.read_text()[:40])  # cut short (a copy interrupted, a disk that filled)
    proposals = calls["propose"]
    again = _run(lm, tmp_path, 2)
    assert again.reused == 1 and all(r.ok for r in again.records)
    assert len(again.unreadable) == 1 and again.unreadable[0].startswith(f"{stored}: not a stored run")
    assert calls["propose"] - proposals == len(load_instance().opening_hypotheses), "only the damaged run ran again"


def test_divergence_over_a_truncated_run_file_names_it(tmp_path, capsys):
    (tmp_path / "runs").mkdir()
    broken = tmp_path / "runs" / "d0-r0.json"
    broken.write_text('{"run_id": "d0-r0", "depth": 0, "rer')
    outcome = run_cli(capsys, "hyp", "divergence", tmp_path, "--rules", "tfidf", "--no-track")
    assert_one_line_error(outcome, f"{broken}: not a stored run")
    assert not (tmp_path / "divergence").exists() or not list((tmp_path / "divergence").iterdir())


def test_a_busy_run_folder_is_refused(scripted, tmp_path):
    lm, calls = _lm(scripted)
    with folder_lock(tmp_path), pytest.raises(FolderBusy, match="busy: another tribunal run"):
        _run(lm, tmp_path, 1)
    assert calls["propose"] == 0


@pytest.mark.parametrize("taken_by", ["process", "worker"])
def test_ctrl_c_finishes_the_runs_in_progress_and_starts_no_other(monkeypatch, taken_by):
    """Events, not sleeps: the first run sends the Ctrl-C itself once every run is queued, and finishes
    only once the interrupt has cancelled the queued runs, so the order holds on a machine of any speed.

    A terminal's Ctrl-C goes to the process and any thread may take it; on a busy machine it is often a
    worker (``worker``: the signal sent to the running worker thread itself). CPython then runs the
    handler only when the main thread next runs Python code: a main thread asleep on a future with no
    timeout missed it until the run ended (a failure seen at load 5)."""
    import os
    import signal
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import tribunal.eval.hyp.run_job as run_job
    from tribunal.errors import Interrupted

    queue_cancelled, all_submitted, submitted = threading.Event(), threading.Event(), []

    class ObservedPool(ThreadPoolExecutor):
        def submit(self, *args, **kwargs):
            future = super().submit(*args, **kwargs)
            submitted.append(future)
            if len(submitted) == 6:
                all_submitted.set()
            return future

        def shutdown(self, wait=True, *, cancel_futures=False):
            if cancel_futures:
                super().shutdown(wait=False, cancel_futures=True)
                queue_cancelled.set()
            super().shutdown(wait=wait)

    monkeypatch.setattr(run_job, "ThreadPoolExecutor", ObservedPool)
    started: list[tuple[int, int]] = []

    def work(job):
        started.append(job)
        if len(started) == 1:  # Ctrl-C while the first run is in progress and the others wait their turn
            assert all_submitted.wait(60), "every run was queued"
            if taken_by == "process":
                os.kill(os.getpid(), signal.SIGINT)
            else:
                signal.pthread_kill(threading.get_ident(), signal.SIGINT)
            assert queue_cancelled.wait(60), "the interrupt reached the main thread"
        return job

    # The handler a command installs (tribunal's CLI sets its own): the test process has run many libraries
    # before this test, and twice in a full suite under load the interrupt never reached the main thread
    # with whatever SIGINT disposition they left (cause not found; Python's own view of it was unchanged).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])  # the pool's threads inherit it
    try:
        with pytest.raises(Interrupted, match=r"^interrupted: 3 runs stored; rerun the same command to resume$"):
            run_job._run_all(work, [(0, r) for r in range(6)], threads=1, stored=2)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)
    assert started == [(0, 0)], "no run started after the interrupt"
