"""The fields of an MT item are written once (signatures/mqm/item_fields.py) and used everywhere."""

from __future__ import annotations

from tribunal.optimizers import trace_labels
from tribunal.optimizers import judge_model, training_data
from tribunal.programs.mqm import labels
from tribunal.signatures.mqm.gemba import GembaMQM
from tribunal.signatures.mqm.item_fields import MT_ITEM_FIELDS


def test_every_user_takes_the_one_tuple():
    assert labels.MT_INPUTS is MT_ITEM_FIELDS
    assert training_data.MT_INPUTS is MT_ITEM_FIELDS
    assert judge_model.MT_COLUMNS is MT_ITEM_FIELDS
    assert trace_labels.MT_FIELDS is MT_ITEM_FIELDS


def test_a_judge_signature_reads_exactly_these_inputs():
    assert set(GembaMQM.input_fields) == set(MT_ITEM_FIELDS)
