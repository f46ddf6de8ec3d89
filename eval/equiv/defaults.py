"""Default thresholds of the equivalence rules, in one light module (the CLI reads them without
importing numpy or a model).

- TF-IDF 0.25 and embedding 0.77: arXiv 2610.04133's settings (BRIEF section 3).
- chain 0.50: the sweep threshold of highest balanced accuracy on seeds 1-20 of the shipped
  suite (``eval/equiv/sweep.best_threshold``), checked on seeds 21-40 and on hand-written pairs.
- cascade band [0.15, 0.50): ``eval/equiv/bands.bands_from_sweep`` (tolerance 0.05) on the same
  sweep. The README's equivalence section shows the sweeps and the checks.
"""

TFIDF_THRESHOLD = 0.25
EMBEDDING_THRESHOLD = 0.77
CHAIN_THRESHOLD = 0.50
CASCADE_LOW = 0.15
CASCADE_HIGH = 0.50
CALIBRATION_SEEDS = 20  # the first 20 seeds of the suite set the chain threshold and the band
