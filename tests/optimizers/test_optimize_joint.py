"""``tribunal optimize --program joint-mqm`` is refused plainly, before any LM is built (its examples would be a
source's candidates; the training data is one translation per example)."""

from __future__ import annotations

import pytest

from tribunal.errors import UserError
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.optimizers.optimize_job import OptimizeRequest, load_job_inputs


def test_a_judge_of_a_source_s_candidates_is_refused(tmp_path):
    request = OptimizeRequest(program="joint-mqm", optimizer="labeled", train="mqm-ted:en-de:0-4",
                              dev="mqm-ted:en-de:200-204", lm="openai/judge", out=tmp_path / "joint.json")
    with pytest.raises(UserError, match="judges a source's candidates together"):
        load_job_inputs(request, TrackingSettings(enabled=False))
