"""The options of ``tribunal equiv audit`` that no other command shares: the pairs, the rules and
their thresholds, the repeats and the output folder."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.eval.equiv import defaults

RULES_HELP = "Comma-separated rules: tfidf, embedding, chain, llm, cascade (chain screen + LLM judge)."

PairsOption: Optional[Path] = typer.Option(
    None, "--pairs", help="Your own labelled pairs (JSONL: id, kind, label same|different, a, b) instead of the suite.")
RulesOption: str = typer.Option("tfidf,embedding", "--rules", help=RULES_HELP)
RubricOption: Optional[str] = typer.Option(
    None, "--rubric", metavar="RUBRICS", help="LLM rubric(s), comma-separated: full (default), stepwise, component, none. "
    "A tuned judge (--program FILE) brings its own.")
TemperatureOption: float = typer.Option(0.0, "--temperature", help="LLM judge sampling temperature.")
TfidfThresholdOption: float = typer.Option(defaults.TFIDF_THRESHOLD, "--tfidf-threshold",
                                           help="TF-IDF cosine at or above which a pair is 'same'.")
EmbeddingThresholdOption: str = typer.Option(
    str(defaults.EMBEDDING_THRESHOLD), "--embedding-threshold",
    help="Embedding cosine threshold, or 'auto': calibrated so the same-pair rate matches the other rules'.")
EmbeddingTargetRateOption: Optional[float] = typer.Option(
    None, "--embedding-target-rate", help="With --embedding-threshold auto: calibrate to this same-pair rate "
    "instead of the other rules'.")
EmbedderOption: str = typer.Option(
    "all-MiniLM-L6-v2", "--embedder",
    help="all-MiniLM-L6-v2 (offline), a model folder, or a DSPy/LiteLLM embedder name.")
ChainThresholdOption: float = typer.Option(
    defaults.CHAIN_THRESHOLD, "--chain-threshold",
    help="Chain rule: weakest aligned step similarity at or above which a pair is 'same'.")
ChainStepsOption: str = typer.Option("embedding", "--chain-steps", help="Chain rule step vectors: embedding or tfidf.")
ChainExtraStepsOption: str = typer.Option(
    "different", "--chain-extra-steps",
    help="Chain rule: an extra step after the first makes a pair 'different' or is 'allowed'.")
CascadeLowOption: float = typer.Option(
    defaults.CASCADE_LOW, "--cascade-low", help="Cascade: chain score below which a step reworded as a whole counts as "
    "'different' without the LLM (default 0: never; a named difference always does, an unverifiable alias never).")
CascadeHighOption: float = typer.Option(
    defaults.CASCADE_HIGH, "--cascade-high", help="Cascade: chain score at or above which a step reworded as a whole "
    "counts as 'same' without the LLM (default 1: never; verified steps always do, a substituted word never).")
LimitOption: Optional[int] = typer.Option(None, "--limit", min=1, help="Audit only the first N pairs of the suite "
                                          "or pairs file.")
RepeatsOption: int = typer.Option(2, "--repeats", min=1, help="Judge the suite this many times (repeat consistency); "
                                  "with more than one, the LLM judge's answers never come from the response cache.")
ThreadsOption: int = typer.Option(4, "--threads", min=1, help="Concurrent LLM calls.")
ProgramOption: Optional[str] = typer.Option(
    None, "--program", help="The LLM judge: equiv-llm (default) or a tuned export (.json) from `tribunal export`.")
AuditOutOption: Optional[Path] = typer.Option(
    None, "--out",
    help="Where tables and plots go (default: tribunal-out/equiv-audit/<rules>-<hash>, one per configuration).")
