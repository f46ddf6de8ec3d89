"""A Ctrl-C that a worker thread takes still reaches the judging loop while the item is in flight.

A terminal's Ctrl-C goes to the process and any thread may take it (on a busy machine, often a
worker). CPython runs the Python handler only when the main thread next runs Python code, so a
main thread asleep on its futures with no timeout would hear of it only when an item ended.
"""

from __future__ import annotations

import signal
import threading

import pytest

import tribunal.eval.mt.judging as judging
from tribunal.runner import interruptible
from tribunal.core.mt_item import JudgeItem
from tribunal.core.item_result import ItemResult


class _Kept:
    def __init__(self) -> None:
        self.results: list[ItemResult] = []

    def append(self, result: ItemResult) -> None:
        self.results.append(result)


def test_a_ctrl_c_taken_by_a_worker_is_handled_while_its_item_is_in_flight(monkeypatch):
    main_waiting, noticed, heard_in_time = threading.Event(), threading.Event(), []
    next_done, waits = interruptible.Completions.next, []

    def waiting_for_items(completions):
        waits.append(1)
        if len(waits) > 1:  # after the first admission: the item in flight and the next item's admission
            main_waiting.set()
        return next_done(completions)

    def on_sigint(_signum, _frame):
        noticed.set()
        raise KeyboardInterrupt

    def judge_item(program, item, languages, sampling=None):
        assert main_waiting.wait(30), "the main thread waits for the items"
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # this worker takes the Ctrl-C
        heard_in_time.append(noticed.wait(30))  # the item is still in flight until the main thread hears it
        return ItemResult(key=item.key, status="scored", score=0.0)

    monkeypatch.setattr(judging, "judge_item", judge_item)
    monkeypatch.setattr(interruptible.Completions, "next", waiting_for_items)
    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        with pytest.raises(KeyboardInterrupt):
            judging.judge_all(lambda: object(), [JudgeItem("a", "src", "tgt")], {}, _Kept(), concurrency=1)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert heard_in_time == [True], "the main thread handled the Ctrl-C while the item was still being judged"
