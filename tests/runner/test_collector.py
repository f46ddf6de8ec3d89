"""The collector while judging: frozen start-up heap and a higher threshold, both restored, also when runs overlap."""

from __future__ import annotations

import gc

from tribunal.runner.collector import JUDGING_THRESHOLD0, steady_collector


def test_thresholds_and_frozen_heap_are_restored_after_the_last_overlapping_run():
    before = gc.get_threshold()
    with steady_collector():
        assert gc.get_threshold()[0] == max(before[0], JUDGING_THRESHOLD0) and gc.get_freeze_count() > 0
        with steady_collector():  # a second run in the same process
            pass
        assert gc.get_threshold()[0] == max(before[0], JUDGING_THRESHOLD0)  # the first is still judging
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_the_event_loop_collects_less_often_than_threads():
    from tribunal.runner.collector import ASYNC_THRESHOLD0

    before = gc.get_threshold()
    with steady_collector(ASYNC_THRESHOLD0):
        assert gc.get_threshold()[0] == max(before[0], ASYNC_THRESHOLD0) > JUDGING_THRESHOLD0
    assert gc.get_threshold() == before
