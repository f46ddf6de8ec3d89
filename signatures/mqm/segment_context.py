"""Optional inputs of every MT judge signature: a human reference and the document context.

Each is a DSPy input field with its own description, and adds a paragraph of its own to the
signature's instruction. A signature gets them only when a run asks for them
(:func:`segment_signature`); without them it is the unchanged class, so the prompt is byte for
byte what it was.

- ``reference``: the data set's reference translation of the source (``--reference NAME``). It is
  shown for comparison only: the judge still annotates the translation.
- ``context``: the segments before this one in the same document, oldest first, each as its
  source and *the same translation's* rendering of it (``--context N``). That is what MQM and ESA
  raters see (they annotate a document in order, source and translation side by side), and what
  the MQM typology's consistency errors (inconsistency, inconsistent use of terminology) need. The
  context is never judged.

Both are placed where a reader expects them: the context before the source, the reference after
the translation(s). Only signatures that read the segment (those with a ``source`` input) get
them; a call that compares annotations alone (M-MAD's consensus check) does not.
"""

from __future__ import annotations

import copy
import functools

import dspy
from dspy.signatures.signature import make_signature
from pydantic import BaseModel, ConfigDict

REFERENCE_DESC = "a human reference translation of the source, for comparison only (it is not judged)"
CONTEXT_DESC = ("the segments before this one in the same document, oldest first: each one's source and this "
                "translation's rendering of it (context only, not judged; empty at the start of a document)")
REFERENCE_NOTE = ("A reference translation by a human translator is given as well. Use it to understand what the "
                  "source means; do not count a difference from the reference as an error where the translation is "
                  "also correct, and annotate the translation (or the source), never the reference.")
CONTEXT_NOTE = ("The segments that precede this one in the same document are given as context, each with its source "
                "and the translation of it. Use them to resolve references, terminology and consistency across the "
                "document; judge only the current segment and mark no error in the context.")


class ContextSegment(BaseModel):
    """One earlier segment of the document: its source and the judged translation's rendering of it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    translation: str


def reads_segment(signature: type[dspy.Signature]) -> bool:
    """Whether ``signature`` reads the segment (has a ``source`` input), so it can take a reference and context."""
    return "source" in signature.input_fields


@functools.cache
def segment_signature(base: type[dspy.Signature], reference: bool, context: bool) -> type[dspy.Signature]:
    """``base`` with a ``reference`` and/or ``context`` input and their instruction paragraphs.

    ``base`` itself when neither is asked for or it does not read the segment. The new class is
    named after ``base`` (``GembaMQMWithReference``, ``GembaMQMInContext``,
    ``GembaMQMWithReferenceInContext``), so prompts and traces say what was asked.
    """
    if not (reference or context) or not reads_segment(base):
        return base
    inputs = list(base.input_fields.items())
    if context:
        at = next(i for i, (name, _) in enumerate(inputs) if name == "source")
        inputs.insert(at, ("context", dspy.InputField(desc=CONTEXT_DESC)))
    if reference:
        last = max(i for i, (name, _) in enumerate(inputs) if name in ("source", "translation", "translation_b"))
        inputs.insert(last + 1, ("reference", dspy.InputField(desc=REFERENCE_DESC)))
    types = {"context": list[ContextSegment], "reference": str}
    fields = {name: (types[name] if name in types else field.annotation, copy.deepcopy(field))
              for name, field in [*inputs, *base.output_fields.items()]}
    notes = [note for wanted, note in ((reference, REFERENCE_NOTE), (context, CONTEXT_NOTE)) if wanted]
    name = base.__name__ + ("WithReference" if reference else "") + ("InContext" if context else "")
    return make_signature(fields, "\n\n".join([base.instructions, *notes]), signature_name=name)
