"""The options of ``tribunal hyp run`` and ``tribunal hyp divergence`` that no other command shares."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tribunal.eval.equiv import defaults

# tribunal hyp run
RunLmOption: str = typer.Option(
    ..., "--lm", help="LiteLLM model for the proposer, critic and reviser (the generation model).")
RunCacheOption: bool = typer.Option(
    True, "--cache/--no-cache", help="Reuse DSPy's response cache for a resumed run folder "
    "(reruns are never answered from it: each lineage samples with its own rollout id).")
InstanceOption: Optional[List[Path]] = typer.Option(
    None, "--instance", help="Instance file (repeatable): a JSON object, a JSON list or JSON Lines, each with id, "
    "research_question, observed_finding, opening_hypotheses and optional evidence passages. "
    "Default: the shipped example.")
DepthsOption: str = typer.Option("0,1,5", "--depths", help="Critique rounds K to run (comma-separated).")
RerunsOption: int = typer.Option(5, "--reruns", min=1, help="Independent runs per instance and depth (each its own "
                                 "samples: never a replay from DSPy's response cache).")
RunTemperatureOption: float = typer.Option(0.7, "--temperature",
                                           help="Generation temperature (reruns need > 0 to differ).")
MaxPerOpeningOption: int = typer.Option(
    3, "--max-per-opening", min=1, help="Hypotheses kept alive per opening hypothesis: the proposer and reviser may "
    "offer alternatives up to this many (1 = one hypothesis per opening, the workflow before lineages).")
JudgeLmOption: Optional[str] = typer.Option(
    None, "--judge-lm", help="LiteLLM model of the post-hoc engagement judge (default: --lm), run after the workflow.")
JudgeTemperatureOption: float = typer.Option(0.0, "--judge-temperature", help="Engagement judge temperature.")
EngagementOption: bool = typer.Option(
    True, "--engagement/--no-engagement",
    help="Label each critique demand answered/conceded/partial/dropped after the runs.")
RunThreadsOption: int = typer.Option(4, "--threads", min=1, help="Runs executed concurrently.")
RunOutOption: Optional[Path] = typer.Option(
    None, "--out", help="Run directory, resumable (default: tribunal-out/hyp-runs/<instance>_<lm>-<hash>, one per "
    "instance, LM and temperature).")

# tribunal hyp divergence
RunDirArgument: Path = typer.Argument(..., help="A directory written by `tribunal hyp run`.")
DivergenceRulesOption: str = typer.Option(
    "tfidf,embedding", "--rules",
    help="Comma-separated rules judging 'same mechanism?': tfidf, embedding, chain, llm, cascade.")
DivergenceRubricOption: str = typer.Option("full", "--rubric", metavar="RUBRICS",
                                           help="LLM rubric(s), comma-separated: full, stepwise, component, none.")
DivergenceLmOption: Optional[str] = typer.Option(
    None, "--lm", help="LiteLLM model for the llm and cascade rules (temperature 0).")
DivergenceTfidfOption: float = typer.Option(
    defaults.TFIDF_THRESHOLD, "--tfidf-threshold",
    help="tfidf rule: TF-IDF cosine similarity at or above which two hypotheses are the 'same'.")
DivergenceEmbeddingOption: float = typer.Option(
    defaults.EMBEDDING_THRESHOLD, "--embedding-threshold",
    help="embedding rule: embedding cosine similarity at or above which two hypotheses are the 'same'.")
DivergenceEmbedderOption: str = typer.Option("all-MiniLM-L6-v2", "--embedder",
                                             help="all-MiniLM-L6-v2 (offline) or another embedder.")
MatchingOption: str = typer.Option(
    "lineage", "--matching", help="lineage: every pair of hypotheses descending from the same opening hypothesis "
    "(the paper's); slot: one pair per opening (tribunal before lineages).")
AlternativeOption: str = typer.Option(
    "two-sided", "--alternative", help="two-sided: |T| >= |t| (the paper's test); greater: T >= t (tribunal's "
    "earlier one-sided test).")
ExactLimitOption: int = typer.Option(
    2_500_000, "--exact-limit", min=1, help="Largest convolution step of the exact joint test; beyond it the "
    "p-value is sampled.")
SamplesOption: int = typer.Option(100_000, "--samples", min=1, help="Joint splits drawn when the test samples.")
SeedOption: int = typer.Option(0, "--seed", help="Seed of the sampling fallback.")
FrameJudgeOption: bool = typer.Option(
    True, "--frame-judge/--no-frame-judge",
    help="Give the LLM judge each instance's research question and observed finding.")
DivergenceOutOption: Optional[Path] = typer.Option(
    None, "--out", help="Write the tables as TSV here (default: RUN_DIR/divergence).")
