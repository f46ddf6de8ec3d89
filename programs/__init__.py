"""DSPy modules composed from signatures: M-MAD, baselines, equivalence judges."""
