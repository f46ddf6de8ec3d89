"""The MT judge of a run, built as every runner builds it: LMs, demos and tuned state from an ``EvaluateConfig``.

The thread runner (:mod:`tribunal.eval.mt.job`), the worker processes
(:mod:`tribunal.eval.mt.processes`), the batch runner (:mod:`tribunal.eval.mt.batch.runner`) and the
judging service (:func:`tribunal.service.judging.judge_factory`) all call :func:`program_factory`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from tribunal.core.judges import build_judge
from tribunal.errors import UserError
from tribunal.data.program_export import read_export
from tribunal.data.program_identity import program_identity
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.eval.tracking.call_log import attach_call_log
from tribunal.programs.lm import build_lm, build_role_lms
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.runner.connections import pooled_engine
from tribunal.runner.meter import attach_relay


def _demo_root(config: EvaluateConfig) -> Path:
    if config.demo_data:
        return config.demo_data
    root = os.environ.get("TRIBUNAL_DATA")
    if not root:
        raise ValueError("few-shot demos need the TED MQM data: pass demo_data / --demo-data or set TRIBUNAL_DATA")
    return Path(root) / "mqm-ted"


def _tuned_state(config: EvaluateConfig) -> dict[str, Any] | None:
    """The verified export named by ``config.program_file`` (None without one)."""
    if config.program_file is None:
        return None

    document = read_export(config.program_file)
    if document["program"]["name"] != config.program:
        raise UserError(f"{config.program_file}: exported program is {document['program']['name']!r}, "
                        f"not {config.program!r}")
    return document


def program_factory(config: EvaluateConfig, engine: Any = None, cap: Any = None) -> Callable[[], Any]:
    """A function building a fresh program (one per worker thread) with its LMs and demos.

    With ``config.program_file`` the tuned export's state (instructions, demos) replaces the
    default demos, after its structure is checked against the program built from ``config``.
    ``cap``: a spending cap made the gate of every LM (:mod:`tribunal.runner.spending_cap`).
    """
    if engine is None and len(config.router.endpoints) > 1:
        from tribunal.runner.router import RouterEngine, build_router  # read when called: tests patch build_router

        engine = RouterEngine(build_router(config))
    elif engine is None and not config.role_lms:
        engine = pooled_engine(config.lm, config.concurrency)
    # The relay callback lets the per-item usage meter count these LMs' calls.
    lms = RoleLMs(attach_relay(build_lm(config.lm, engine)),
                  {role: attach_relay(lm) for role, lm in build_role_lms(config.lm, config.role_lms, engine).items()})
    if cap is not None:
        cap.attach([lms.default, *lms.roles.values()])
    tuned = _tuned_state(config)  # an export carries its own demos
    plan = config.judge.demo_plan()
    demos: dict[str, list] = {}
    if tuned is None and plan is not None:
        demos = plan.build(config.program_settings(), lambda: _demo_root(config), config.lp, config.demo_count)

    def make() -> Any:
        program = attach_call_log(build_judge(config.program, config.program_settings(), lms, config.segment),
                                  [lms.default, *lms.roles.values()])
        program.strict = config.strict  # fallbacks off: an unusable role unscores its item
        for name, examples in demos.items():
            getattr(program, name).demos = list(examples)
        if tuned is not None:
            if program_identity(program) != tuned["program"]["identity"]:
                raise UserError(f"{config.program_file}: its structure does not match {config.program} "
                                "with these settings (stages, strategy, reference, context)")
            program.load_state(tuned["state"])
        return program

    if tuned is not None:
        make()  # a mismatch is reported before any item is judged
    return make
