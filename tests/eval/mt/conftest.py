"""Make ``tests.support`` importable (pytest's importlib mode does not put the repo on sys.path)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

