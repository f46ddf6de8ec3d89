"""``mt evaluate`` options, each checked by its effect (the signature, the files, the store, the server)."""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter

import pytest

from tests.support.cli import run_cli
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.tracking.signature import escape

KEY_ENV = "TRIBUNAL_OPTIONS_TEST_KEY"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-options-test")
    with loopback_server(synthetic_judge) as (api_base, state):
        yield api_base, state


def model() -> str:
    return f"openai/mt-options-{uuid.uuid4().hex[:8]}"


def store_runs(uri: str, experiment: str):
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    found = client.get_experiment_by_name(experiment)
    runs = [r for r in client.search_runs([found.experiment_id]) if "mlflow.parentRunId" not in r.data.tags]
    return client, found.experiment_id, runs


def signature(out: str) -> str:
    return re.search(r"^signature: (\S+)$", out, re.M).group(1)


def test_config_file_and_mmad_flags(tmp_path, capsys, monkeypatch, server, wmt23_root):
    api_base, state = server
    monkeypatch.chdir(tmp_path)
    flag_model = model()
    config = tmp_path / "run.toml"
    config.write_text(f'lp = "zh-en"\nprogram = "mmad"\nsystems = ["Lan-BridgeMT"]\n'
                      f'[lm]\nmodel = "openai/from-config"\napi_base = "{api_base}"\napi_key_env = "{KEY_ENV}"\n'
                      '[mmad]\nstrategy = "deliberation"\nrounds = 3\n')
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    outcome = run_cli(capsys, "mt", "evaluate", "--data", wmt23_root, "--config", config, "--lm", flag_model,
                      "--rounds", "2", "--topic", "category", "--preset", "lean", "--ablate", "stage3", "--demos", "0",
                      "--name", "MyJudge", "--limit", "3", "--rated-only", "--concurrency", "2", "--out",
                      tmp_path / "out", "--tracking-uri", uri, "--experiment", "mt-options")
    assert outcome.status == 0, outcome.err
    sig = signature(outcome.out)
    for part in ("prog:mmad", "preset:lean", "strategy:deliberation", "rounds:2", "topic:category", "ablate:stage3",
                 f"lm:{flag_model}", f"endpoint:{escape(api_base)}", "demos:0", "lp:zh-en"):  # ":" escaped
        assert f"{part}|" in sig, part  # config (strategy, endpoint) under flags (lm, rounds, ...)
    assert "MergingJudgment" not in Counter(h[0] for h in state.hits)  # stage 3 left out
    assert (tmp_path / "out" / "metric-scores" / "zh-en" / "MyJudge-src.seg.score").is_file()
    cells = [json.loads(line) for line in (tmp_path / "out" / "errors.jsonl").read_text().splitlines()]
    assert {c["system"] for c in cells} == {"Lan-BridgeMT"}  # systems from the config file
    from tribunal.data.mtme import LanguagePair

    gold = LanguagePair(wmt23_root, "zh-en").gold_seg["Lan-BridgeMT"]
    assert all(gold[c["segment"]] is not None for c in cells)  # --rated-only
    client, experiment_id, [run] = store_runs(uri, "mt-options")
    assert run.data.params["concurrency"] == "2" and run.data.params["rated_only"] == "True"
    assert len(client.search_traces(locations=[experiment_id])) == 3  # a trace per item by default


def test_trace_sample_cache_routing_and_processes(tmp_path, capsys, monkeypatch, server, wmt23_root):
    import tribunal.eval.mt.processes as processes

    api_base, state = server
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    lm = model()
    base = ["mt", "evaluate", "--data", wmt23_root, "--lp", "zh-en", "--lm", lm, "--api-key-env", KEY_ENV,
            "--program", "gemba-mqm", "--limit", "4"]
    sampled = run_cli(capsys, *base, "--api-base", api_base, "--trace-sample", "0", "--out", tmp_path / "a",
                      "--tracking-uri", uri, "--experiment", "untraced")
    assert sampled.status == 0, sampled.err
    client, experiment_id, [run] = store_runs(uri, "untraced")
    assert client.search_traces(locations=[experiment_id]) == [] and run.info.run_id in sampled.out
    assert len(state.hits) == 4

    cached = run_cli(capsys, *base, "--api-base", api_base, "--out", tmp_path / "b", "--no-track")
    assert "0 answered by the provider, 4 from the response cache" in cached.out and len(state.hits) == 4
    paid = run_cli(capsys, *base, "--api-base", api_base, "--no-cache", "--out", tmp_path / "c", "--no-track")
    assert "4 answered by the provider, 0 from the response cache" in paid.out and len(state.hits) == 8

    from tribunal.runner import router

    strategies = []
    real_router = router.build_router

    def recorded(config):
        built = real_router(config)
        strategies.append(built.routing_strategy)
        return built

    monkeypatch.setattr(router, "build_router", recorded)
    with loopback_server(synthetic_judge) as (second_base, second):
        before = len(state.hits)
        routed = run_cli(capsys, *base[:-2], "--limit", "16", "--api-base", api_base, "--api-base", second_base,
                         "--routing", "simple-shuffle", "--no-cache", "--out", tmp_path / "d", "--no-track")
        assert routed.status == 0, routed.err
        on_first, on_second = len(state.hits) - before, len(second.hits)
        assert on_first > 0 and on_second > 0 and on_first + on_second == 16  # both replicas served
        default = run_cli(capsys, *base[:-2], "--limit", "2", "--api-base", api_base, "--api-base", second_base,
                          "--no-cache", "--out", tmp_path / "d2", "--no-track")
        assert default.status == 0, default.err
    assert strategies == ["simple-shuffle", "least-busy"], "--routing picks the Router's strategy"

    used = []
    real = processes.judge_in_processes
    monkeypatch.setattr(processes, "judge_in_processes",
                        lambda config, *a, **k: used.append(config.processes) or real(config, *a, **k))
    before = len(state.hits)
    split = run_cli(capsys, *base, "--api-base", api_base, "--processes", "2", "--no-cache", "--out", tmp_path / "e",
                    "--no-track")
    assert split.status == 0, split.err
    assert used == [2] and "scored 4, unscored 0" in split.out and len(state.hits) - before == 4
