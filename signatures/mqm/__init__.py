"""Signatures of the MQM translation judges: M-MAD's agents and the single-judge baselines."""
