"""``tribunal hyp ...``: the hypothesis self-critique workflow and run divergence."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tribunal.cli.cap_options import MaxCallsOption, MaxCostOption
from tribunal.cli.common import Experiment, NoTrack, TrackingUri
from tribunal.cli.estimate_options import EstimateOption, JsonOption
from tribunal.cli.help_policy import examples
from tribunal.cli.hyp_divergence import DivergenceArgs, run_divergence_command
from tribunal.cli.hyp_options import (AlternativeOption, DepthsOption, DivergenceEmbedderOption,
                                      DivergenceEmbeddingOption, DivergenceLmOption, DivergenceOutOption,
                                      DivergenceRubricOption, DivergenceRulesOption, DivergenceTfidfOption,
                                      EngagementOption, ExactLimitOption, FrameJudgeOption, InstanceOption,
                                      JudgeLmOption, JudgeTemperatureOption, MatchingOption, MaxPerOpeningOption,
                                      RerunsOption, RunCacheOption, RunDirArgument, RunLmOption, RunOutOption,
                                      RunTemperatureOption, RunThreadsOption, SamplesOption, SeedOption)
from tribunal.cli.hyp_run import RunArgs, run_hyp_command
from tribunal.cli.lm_options import (ApiBaseOption, ApiKeyEnvOption, CacheOption, MaxTokensOption, ReasksOption,
                                     TimeoutOption)

app = typer.Typer(no_args_is_help=True)

RUN_EPILOG = examples(
    "tribunal hyp run --lm openai/gpt-4o-mini",
    "tribunal hyp run --instance my_instances.jsonl --depths 0,1,5 --reruns 5 --lm openai/gpt-4o-mini "
    "--judge-lm openai/gpt-4o --out runs/",
    "tribunal hyp divergence runs/")
DIVERGENCE_EPILOG = examples(
    "tribunal hyp divergence tribunal-out/hyp-runs/example_gpt-4o-mini-1a2b3c4d",
    "tribunal hyp divergence runs/ --rules tfidf,llm --lm openai/gpt-4o-mini --rubric full,component")


@app.command("run", epilog=RUN_EPILOG)
def run(
    ctx: typer.Context,
    lm: str = RunLmOption,
    api_base: Optional[str] = ApiBaseOption,
    api_key_env: Optional[str] = ApiKeyEnvOption,
    cache: bool = RunCacheOption,
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    instance: Optional[List[Path]] = InstanceOption,
    depths: str = DepthsOption,
    reruns: int = RerunsOption,
    temperature: float = RunTemperatureOption,
    max_per_opening: int = MaxPerOpeningOption,
    judge_lm: Optional[str] = JudgeLmOption,
    judge_temperature: float = JudgeTemperatureOption,
    engagement: bool = EngagementOption,
    threads: int = RunThreadsOption,
    out: Optional[Path] = RunOutOption,
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
    estimate: bool = EstimateOption,
    as_json: bool = JsonOption,
) -> None:
    """Run the hypothesis proposer/critic workflow.

    For every instance and every critique depth K (--depths), --reruns independent runs: the
    proposer offers hypotheses, then K rounds of critic and reviser; afterwards the engagement judge
    labels how each critique demand was met. Runs are stored in --out (resumable) for
    `tribunal hyp divergence`; the run is logged to MLflow.
    """
    run_hyp_command(ctx, RunArgs.of(locals()))


@app.command("divergence", epilog=DIVERGENCE_EPILOG)
def divergence(
    ctx: typer.Context,
    run_dir: Path = RunDirArgument,
    rules: str = DivergenceRulesOption,
    rubric: str = DivergenceRubricOption,
    lm: Optional[str] = DivergenceLmOption,
    api_base: Optional[str] = ApiBaseOption,
    api_key_env: Optional[str] = ApiKeyEnvOption,
    cache: bool = CacheOption,
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    tfidf_threshold: float = DivergenceTfidfOption,
    embedding_threshold: float = DivergenceEmbeddingOption,
    embedder: str = DivergenceEmbedderOption,
    matching: str = MatchingOption,
    alternative: str = AlternativeOption,
    exact_limit: int = ExactLimitOption,
    samples: int = SamplesOption,
    seed: int = SeedOption,
    frame_judge: bool = FrameJudgeOption,
    out: Optional[Path] = DivergenceOutOption,
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """Measure how much runs of the hypothesis workflow diverge.

    Matches hypotheses of two runs (by lineage or slot), judges each matched pair with each rule,
    and reports the instance-averaged extra divergence of cross-depth over same-depth run pairs with
    its exact permutation p-value, per-instance rows, clusters and engagement label shares. Tables
    go to --out as TSV; the run is logged to MLflow.
    """
    run_divergence_command(ctx, DivergenceArgs.of(locals()))
