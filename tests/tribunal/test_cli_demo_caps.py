"""``tribunal demo --max-calls N`` on the loopback peer: one cap over every LM step of the demo. At most N
requests reach the peer; once the cap stops the first judge step, the remaining LM steps are skipped with a
line saying so, the output says what was sent and what is left, and the demo exits with status 5."""

from __future__ import annotations

from tests.support.cli import run_cli
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tests.tribunal.test_cli_demo_loop import quick_demo  # noqa: F401 (a fixture)
from tribunal.errors import EXIT_CAPPED


def test_max_calls_caps_every_lm_step_of_the_demo(quick_demo, capsys, monkeypatch):  # noqa: F811
    with loopback_server(synthetic_judge) as (api_base, state):
        monkeypatch.setenv("TRIBUNAL_API_BASE", api_base)
        outcome = run_cli(capsys, "demo", "--out", quick_demo / "demo", "--no-track", "--max-calls", "3")
    assert outcome.status == EXIT_CAPPED, outcome.err[-3000:]
    assert 0 < len(state.hits) <= 3
    assert "step failed" not in outcome.err and "Traceback" not in outcome.err
    assert "step skipped 6. tune (labeled): --max-calls 3 reached: no new LM step starts" in outcome.err
    assert "8. judge (tuned)" in outcome.err  # skipped: it needs the tuned program
    text = " ".join(outcome.out.split())
    assert f"{len(state.hits)} calls sent of --max-calls 3" in text
    assert "1 LM step(s) skipped (6. tune (labeled))" in text
    assert "stopped by --max-calls 3 (exit status 5)" in text and "tribunal demo" in text


def test_max_cost_on_an_unpriced_model_is_refused_before_any_step(quick_demo, capsys, monkeypatch):  # noqa: F811
    with loopback_server(synthetic_judge) as (api_base, state):
        monkeypatch.setenv("TRIBUNAL_API_BASE", api_base)  # TRIBUNAL_LM=openai/judge: not in LiteLLM's price table
        outcome = run_cli(capsys, "demo", "--out", quick_demo / "demo", "--no-track", "--max-cost", "0.01")
    assert outcome.status != 0 and "has no price" in outcome.err
    assert state.hits == [] and not (quick_demo / "demo").exists()
