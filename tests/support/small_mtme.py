"""A small MTME folder (en-de, 4 segments x 3 systems, every cell rated, one rater file with spans).

Not WMT23: runs over it may be tuned on (``mlflow:`` training slices refuse traces judged on WMT23).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.mtme_folder import write_mtme

SOURCES = ["The committee approved the budget yesterday.", "Prices rose sharply in the spring.",
           "She thanked everyone for their patience.", "The bridge will reopen next month."]
OUTPUTS = {
    "A": ["Der Ausschuss genehmigte gestern den Haushalt.", "Die Preise stiegen im Frühling stark.",
          "Sie dankte allen für ihre Geduld.", "Die Brücke wird nächsten Monat wieder geöffnet."],
    "B": ["Das Komitee hat gestern das Budget genehmigt.", "Preise stiegen scharf im Frühjahr.",
          "Sie bedankte sich bei allen für ihre Geduld.", "Die Brücke öffnet nächsten Monat."],
    "C": ["Der Ausschuss billigte Haushalt gestern.", "Die Preise fielen im Frühling.",
          "Sie dankte allen.", "Die Brücke wird wieder eröffnen nächsten Monat."],
}
GOLD = {"A": [0, -1, 0, 0], "B": [-1, -2, 0, -1], "C": [-6, -5, -5, -2]}


def write_small_mtme(root: Path) -> Path:
    """Write the folder at ``root``; returns ``root``."""
    ratings = []
    for system, lines in OUTPUTS.items():
        for line, score in zip(lines, GOLD[system]):
            word = max(line.split(), key=len)
            start = line.index(word)
            error = {"start": start, "end": start + len(word), "category": "Accuracy/Mistranslation",
                     "severity": "major" if score <= -5 else "minor", "is_source_error": False}
            errors = [] if score == 0 else [error]
            ratings.append(f"{system}\t{json.dumps({'errors': errors})}\n")
    return write_mtme(root, SOURCES, OUTPUTS, {"refA": OUTPUTS["A"]}, GOLD, ["news\td1"] * len(SOURCES),
                      "".join(ratings))
