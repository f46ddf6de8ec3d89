"""The journal of an LLM rule's pair judgments: what a capped or crashed audit keeps, and resumes from.

One JSON line per finished judgment of one pair in one repeat (its key: the judge's framing, both texts,
the repeat), appended as it lands, with the calls it recorded for the traces. A resumed audit loads it
into the rule's memo, so a judged pair is not asked again (and costs nothing); a journal line cut short by
a crash is skipped. The file is named after the rule's setting (rubric, model, program), so another judge
never reads this one's judgments.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

from tribunal.core.judgment import Judgment

JOURNAL_FOLDER = "journal"


def key_id(key: tuple) -> str:
    """A short, stable name of a memo key (framing, text a, text b, repeat)."""
    return hashlib.sha256(json.dumps(key, ensure_ascii=False, default=str).encode()).hexdigest()[:24]


def journal_file(out: Path, label: str, setting: str) -> Path:
    """Where the rule of ``label`` and ``setting`` journals its judgments under the audit's ``out``."""
    digest = hashlib.sha256(setting.encode()).hexdigest()[:10]
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in label)
    return Path(out) / JOURNAL_FOLDER / f"{safe}-{digest}.jsonl"


class PairJournal:
    """Append-only judgments of one LLM rule; thread-safe."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()

    def load(self) -> dict[str, tuple[Judgment, dict[str, Any]]]:
        """``{key id: (judgment, call log)}`` of every readable line (none when there is no file)."""
        entries: dict[str, tuple[Judgment, dict[str, Any]]] = {}
        if not self.path.is_file():
            return entries
        for text in self.path.read_text(encoding="utf-8").splitlines():
            try:
                line = json.loads(text)
                entries[line["key"]] = (Judgment.model_validate(line["judgment"]), line.get("trace") or {})
            except (ValueError, KeyError, TypeError):  # a line a crash cut short: judged again
                continue
        return entries

    def append(self, key: str, judgment: Judgment, trace: dict[str, Any]) -> None:
        """Keep one finished judgment (flushed before it returns)."""
        text = json.dumps({"key": key, "judgment": judgment.model_dump(mode="json"), "trace": trace},
                          ensure_ascii=False, default=str)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(text + "\n")
                handle.flush()
