"""The options of ``tribunal mt evaluate`` that are its own (the LM, cap, tracking and estimate options are
shared: :mod:`~tribunal.cli.lm_options`, :mod:`~tribunal.cli.cap_options`, :mod:`~tribunal.cli.common`,
:mod:`~tribunal.cli.estimate_options`), in the order ``--help`` lists them, and the command's examples."""

from __future__ import annotations

import typer

from tribunal.cli.help_policy import examples
from tribunal.cli.lm_options import API_KEY_ENV_HELP, CACHE_HELP
from tribunal.core.judges import JUDGES

EPILOG = examples(
    "tribunal mt evaluate --lp zh-en --lm openai/gpt-4o-mini --limit 20",
    "tribunal mt evaluate --lp en-de --lm openai/Qwen2.5-7B-Instruct --api-base http://localhost:8000/v1 "
    "--strategy deliberation --ablate stage2",
    "tribunal mt evaluate --lp zh-en --lm openai/gpt-4o-mini --role-lm judge=openai/gpt-4o --program mmad",
    "tribunal mt evaluate --lp en-de --lm openai/gpt-4o-mini --program gemba-mqm --reference refA --context 2 "
    "--samples 5 --temperature 1 --combine trimmed",
    "tribunal mt evaluate --config run.toml --limit 50   # flags override the file")

LpOption = typer.Option(None, "--lp", help="Language pair, e.g. zh-en. Required (here or as lp in --config).")
LmOption = typer.Option(None, "--lm", help="LiteLLM model name of every role without a --role-lm, e.g. "
    "openai/gpt-4o-mini. Required (here or as lm.model in --config).")
DataOption = typer.Option(None, "--data", help="A folder in the mt-metrics-eval layout (default: $TRIBUNAL_DATA/wmt23).")
ProgramOption = typer.Option(None, "--program", metavar="NAME|FILE", help=f"{' | '.join(JUDGES.names('mt'))} (default: {JUDGES.default('mt')}), or a tuned export (.json) from `tribunal export`.")
ApiBaseOption = typer.Option(
    None, "--api-base", help="Base URL of an OpenAI-compatible server (vLLM, Ollama, a gateway); repeat it for "
    "several replicas of the model (LiteLLM's Router balances them).")
RoutingOption = typer.Option(None, "--routing", help="With several --api-base: least-busy (default) | simple-shuffle.")
BatchOption = typer.Option(None, "--batch", help="Send the calls through the provider's batch API "
    "(OpenAI, vLLM, Anthropic) at the batch price; results take longer.")
BatchPollOption = typer.Option(None, "--batch-poll", help="With --batch: first wait between status checks, in seconds (default: 30).")
ApiKeyEnvOption = typer.Option(None, "--api-key-env", help=API_KEY_ENV_HELP)
CacheOption = typer.Option(None, "--cache/--no-cache", help=CACHE_HELP + " Default: on.")
RoleLmOption = typer.Option(None, "--role-lm", help="A role on its own LM (repeatable): ROLE=MODEL or ROLE=MODEL@API_BASE, e.g. judge=openai/gpt-4o; roles: dimension, debater, judge, ...")
SystemsOption = typer.Option(None, "--systems", help="A system to judge (repeatable; default: every scored system).")
LimitOption = typer.Option(None, "--limit", help="Judge at most N unique (source, translation) items.")
RatedOnlyOption = typer.Option(None, "--rated-only", help="Only cells with a gold MQM score.")
ConcurrencyOption = typer.Option(None, "--concurrency", help="At most N LM calls in flight (default: 8).")
JudgingOption = typer.Option(
    None, "--judging", metavar="threads|async",
    help="How items are judged: threads (default) or async (coroutines on one event loop, a call in flight "
    "costs a task and a socket; --concurrency up to 4096; every MT judge).")
ProcessesOption = typer.Option(
    None, "--processes", help="Worker processes sharing those calls (default: 1; try 2 or more at high concurrency).")
DemosOption = typer.Option(None, "--demos", help="M-MAD: few-shot demos per stage-1 agent (default: the preset's, 4 for paper, 2 for lean).")
ReferenceOption = typer.Option(None, "--reference", metavar="NAME|none", help="Show the judge the data set's reference of that name (e.g. refA) beside the translation (default: none, reference-free as in the papers).")
ContextOption = typer.Option(None, "--context", metavar="N", help="Show the judge the N previous segments of the same document (source and this translation of them; from documents/LP.docs) as context, never judged (default: 0).")
SamplesOption = typer.Option(None, "--samples", metavar="K", help="K independent judgments per item (each its own DSPy rollout, never another's cached answer), combined by --combine; calls and spend scale by K (default: 1).")
CombineOption = typer.Option(None, "--combine", metavar="RULE", help="How --samples are combined: mean (default) | median | trimmed (tribunal's rule after GEMBA-MQM V2: drop scores beyond 2 sigma, reciprocal-rank weighted average) | gemba-v2 (the published GEMBA-MQM V2 aggregation, as far as its abstract states it).")
TemperatureOption = typer.Option(None, "--temperature", metavar="T", help="Sampling temperature of every LM call (default: 0); use T > 0 with --samples.")
OutOption = typer.Option(None, "--out", metavar="DIR", help="Output folder (default: tribunal-out/mt/<configuration>-<hash>, one per configuration).")
NameOption = typer.Option(None, "--name", help="Metric name in the score files (default: from the program and its settings, e.g. M-MAD-deliberation).")
RetryUnscoredOption = typer.Option(None, "--retry-unscored", help="Judge journaled unscored and degraded items again (they are paid again).")
StrictOption = typer.Option(None, "--strict", help="No fallbacks: a role whose answer stays unusable after its re-asks unscores its item (default: the program's fallback, e.g. M-MAD keeps a failed debate's stage-1 annotation, and the item is marked degraded).")
DegradedOption = typer.Option(None, "--degraded", metavar="include|exclude", help="Whether degraded items count in the score files and the meta-evaluation (default: include); errors.jsonl lists them either way.")
ConfigOption = typer.Option(None, "--config", help="A .toml or .json file of settings (the fields of EvaluateConfig); flags override it.")
