"""MQM translation judges as DSPy modules: M-MAD (with its debate strategies) and the baselines."""
