"""A small mt-metrics-eval folder with two documents and two references, for the reference / context /
sampling tests (imported by the test modules; not collected).

en-de, 4 segments: segments 0-1 are document d1, 2-3 document d2. Systems A and B translate
segment 1 alike but segment 0 differently (one pair, two contexts); C differs everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.mtme_folder import write_mtme

SOURCES = ["The committee approved the budget yesterday.", "Prices rose sharply in the spring.",
           "She thanked everyone.", "The bridge will reopen next month."]
OUTPUTS = {
    "A": ["Der Ausschuss genehmigte gestern den Haushalt.", "Die Preise stiegen im Frühling stark.",
          "Sie dankte allen.", "Die Brücke wird nächsten Monat wieder geöffnet."],
    "B": ["Das Komitee hat gestern das Budget genehmigt.", "Die Preise stiegen im Frühling stark.",
          "Sie bedankte sich bei allen.", "Die Brücke öffnet nächsten Monat."],
    "C": ["Der Ausschuss billigte Haushalt gestern.", "Die Preise fielen im Frühling.",
          "Sie bedankte sich.", "Die Brücke wird wieder eröffnen nächsten Monat."],
}
REFERENCES = {"refA": ["Der Ausschuss hat gestern den Haushalt gebilligt.", "Die Preise stiegen im Frühjahr stark.",
                       "Sie dankte allen.", "Die Brücke öffnet nächsten Monat wieder."],
              "refB": ["Gestern billigte der Ausschuss den Etat.", "Im Frühjahr zogen die Preise kräftig an.",
                       "Sie bedankte sich bei allen.", "Nächsten Monat wird die Brücke wieder geöffnet."]}
DOCUMENTS = ["news\td1", "news\td1", "news\td2", "news\td2"]
GOLD = {"A": [0, -1, 0, 0], "B": [-1, -2, 0, -1], "C": [-6, -5, -5, -2]}


def two_document_mtme(root: Path, documents: bool = True) -> Path:
    """Write the folder under ``root`` (without ``documents/en-de.docs`` when ``documents`` is False)."""
    ratings = "".join(f"{s}\t{json.dumps({'errors': []})}\n" for s in OUTPUTS for _ in SOURCES)
    return write_mtme(root, SOURCES, OUTPUTS, REFERENCES, {**GOLD, "refA": [0, 0, 0, 0], "refB": [0, 0, 0, 0]},
                      DOCUMENTS if documents else None, ratings)
