import importlib.util
import sys
from pathlib import Path

import pytest


def _load_support():
    name = "tribunal_tests_scripted_lm"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).parents[1] / "support" / "scripted_lm.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def scripted():
    """The scripted-LM helpers: ``scripted.scripted_lm(respond)``, ``scripted.field(user, name)``."""
    return _load_support()
