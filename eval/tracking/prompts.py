"""The judges' prompts in MLflow's prompt registry, versioned, and linked to the runs that used them.

Two kinds of prompt:

- ``tribunal.<Signature>``: a signature's instruction (its docstring) with its input fields as
  ``{{ placeholders }}`` and its typed outputs as the response format (a JSON schema). A new
  version is registered only when the text changes.
- ``tribunal.<program>.<predictor>``: what one predictor of a program actually sends — its (possibly
  tuned) instruction as the system message, its demos as user/assistant turns, the inputs last.
  An optimize run registers one per predictor of the tuned program and links them to the run.

Versions are deduplicated by a hash of their content (tag ``tribunal.sha``): registering the same
text again links the existing version instead of adding one.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping
import importlib
import pkgutil

from tribunal.eval.tracking.signature import text_hash
import tribunal.signatures as package

SHA_TAG = "tribunal.sha"


def _placeholders(signature: Any) -> str:
    return "\n\n".join(f"{name}: {{{{ {name} }}}}" for name in signature.input_fields)


def response_format(signature: Any) -> dict[str, Any]:
    """The JSON schema of ``signature``'s output fields."""
    from pydantic import create_model  # heavy: pydantic

    fields = {name: (info.annotation, ...) for name, info in signature.output_fields.items()}
    return create_model(f"{signature.__name__}Outputs", **fields).model_json_schema()


def signature_template(signature: Any) -> str:
    """A signature's instruction followed by its inputs as placeholders."""
    return f"{signature.instructions.strip()}\n\n{_placeholders(signature)}"


def _demo_turns(signature: Any, demos: Iterable[Any]) -> list[dict[str, str]]:
    turns = []
    for demo in demos:
        values = dict(demo.items()) if hasattr(demo, "items") else dict(demo)
        shown = {k: values[k] for k in signature.input_fields if k in values}
        answer = {k: values[k] for k in signature.output_fields if k in values}
        turns.append({"role": "user", "content": json.dumps(shown, ensure_ascii=False, default=str)})
        turns.append({"role": "assistant", "content": json.dumps(answer, ensure_ascii=False, default=_dump)})
    return turns


def _dump(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else str(value)


def predictor_template(predictor: Any) -> list[dict[str, str]]:
    """A predictor as a chat prompt: instruction, demos as turns, the inputs last."""
    signature = predictor.signature
    return ([{"role": "system", "content": signature.instructions.strip()}]
            + _demo_turns(signature, getattr(predictor, "demos", None) or [])
            + [{"role": "user", "content": _placeholders(signature)}])


class PromptRegistry:
    """Registers prompt versions in a run's store and links them to the run (a no-op untracked)."""

    def __init__(self, run: Any):
        self.run = run
        self.enabled = getattr(run, "run_id", None) is not None
        self.linked: list[str] = []
        if self.enabled:
            from tribunal.eval.tracking.datasets import use_store  # heavy: pulls in pandas, pyarrow

            use_store(run)  # the registry links new prompts to the active experiment

    def register(self, name: str, template: str | list[dict[str, str]], message: str,
                 tags: Mapping[str, Any] | None = None, fmt: dict[str, Any] | None = None) -> Any:
        """The version of ``name`` holding ``template`` (registered if new), linked to the run."""
        if not self.enabled:
            return None
        client = self.run.client
        sha = text_hash(json.dumps(template, sort_keys=True, ensure_ascii=False), 16)
        from mlflow.exceptions import MlflowException  # heavy: mlflow, pandas

        version = self._existing(name, sha)
        for attempt in (1, 2):
            if version is not None:
                break
            try:
                version = client.register_prompt(name=name, template=template, commit_message=message,
                                                  tags={SHA_TAG: sha, **{k: str(v) for k, v in (tags or {}).items()}},
                                                  response_format=fmt)
            except MlflowException:  # another process registered the prompt at the same moment
                version = self._existing(name, sha)
                if attempt == 2 and version is None:
                    raise
        client.link_prompt_version_to_run(self.run.run_id, version)
        self.linked.append(f"prompts:/{name}/{version.version}")
        return version

    def _existing(self, name: str, sha: str) -> Any:
        from mlflow.exceptions import MlflowException  # heavy: mlflow, pandas

        try:
            versions = self.run.client.search_prompt_versions(name)
        except MlflowException:  # no prompt of that name yet
            return None
        return next((v for v in versions if (v.tags or {}).get(SHA_TAG) == sha), None)

    def signatures(self, program: Any) -> list[Any]:
        """Register (or find) the instruction of every signature ``program`` uses."""
        seen: dict[str, Any] = {}
        for _, predictor in program.named_predictors():
            base = _base_signature(predictor.signature)
            if base.__name__ not in seen and base.__name__ != "StringSignature":  # an unnamed signature: no prompt
                seen[base.__name__] = self.register(
                    f"tribunal.{base.__name__}", signature_template(base), f"{base.__name__} instruction",
                    {"tribunal.kind": "signature", "tribunal.module": base.__module__}, response_format(base))
        return list(seen.values())

    def program(self, program: Any, program_name: str, message: str, tags: Mapping[str, Any] | None = None) -> list[Any]:
        """Register every predictor of ``program`` (instruction and demos) as ``tribunal.<program>.<predictor>``."""
        versions = []
        for path, predictor in program.named_predictors():
            demos = len(getattr(predictor, "demos", None) or [])
            versions.append(self.register(
                f"tribunal.{program_name}.{path}", predictor_template(predictor), message,
                {"tribunal.kind": "program", "tribunal.program": program_name, "tribunal.demos": demos,
                 "tribunal.signature": _base_signature(predictor.signature).__name__, **(tags or {})}))
        return versions


def signature_classes() -> list[Any]:
    """Every signature class defined in ``tribunal.signatures`` (its modules are imported here)."""
    import dspy  # heavy: dspy, pydantic


    found: dict[str, Any] = {}
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, dspy.Signature) and value.__module__ == module.__name__
                    and not value.__name__.startswith("_")):
                found[value.__name__] = value
    return sorted(found.values(), key=lambda cls: cls.__name__)


def _shape(signature: Any) -> tuple:
    return (tuple(signature.input_fields), tuple((k, str(v.annotation)) for k, v in signature.output_fields.items()))


def _base_signature(signature: Any) -> Any:
    """The signature class a predictor's signature was made from (DSPy renames instruction-tuned ones)."""
    if signature.__name__ != "StringSignature":
        return signature
    return next((cls for cls in signature_classes() if _shape(cls) == _shape(signature)), signature)


def register_all_signatures(settings: Any) -> list[str]:
    """Every signature's instruction as a prompt version, in a run ``prompts`` that links them all."""
    from tribunal.eval.tracking.mlflow_run import tracked_run  # heavy: pulls in pydantic

    with tracked_run(settings, "prompts | every signature instruction", tags={"tribunal.command": "prompts"}) as run:
        registry = PromptRegistry(run)
        for signature in signature_classes():
            registry.register(f"tribunal.{signature.__name__}", signature_template(signature),
                              f"{signature.__name__} instruction",
                              {"tribunal.kind": "signature", "tribunal.module": signature.__module__},
                              response_format(signature))
        run.log_metrics({"prompts": float(len(registry.linked))})
    return registry.linked
