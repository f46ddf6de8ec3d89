"""The fields of one MT item that every MT judge's signature reads: its texts and their languages.

The one definition of the tuple: the training data and labelled demos give these as inputs, the pyfunc
model takes them as columns, and trace labels read them from a trace. (The optional segment inputs,
``reference`` and ``context``, are :data:`tribunal.programs.mqm.segment_inputs.SEGMENT_KEYS`.)
"""

from __future__ import annotations

MT_ITEM_FIELDS: tuple[str, ...] = ("source", "translation", "source_lang", "target_lang")
