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
