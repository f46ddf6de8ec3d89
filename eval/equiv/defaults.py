"""Default thresholds of the equivalence rules, in one light module (the CLI reads them without
importing numpy or a model).

- TF-IDF 0.25 and embedding 0.77: arXiv 2610.04133's settings (BRIEF section 3).
- chain 0.30: the sweep threshold of highest balanced accuracy on seeds 1-20 of the shipped
  suite (``eval/equiv/sweep.best_threshold``, all seven kinds), checked on seeds 21-40 and on
  two hand-written sets.
- cascade: the chain screen decides alone on what it names (a named or structural difference:
  "different"; the same content words in every step: "same"). ``CASCADE_HIGH`` 1.0 is
  ``eval/equiv/bands.screen_high`` (target 0.97) on the same seeds: they never show a step
  reworded as a whole that the similarity tells apart, so the similarity alone never calls a pair
  "same". ``CASCADE_LOW`` 0: a low similarity never calls a pair "different" alone (it may be an
  alias the encoder does not know). The README's equivalence section shows the figures.
"""

TFIDF_THRESHOLD = 0.25
EMBEDDING_THRESHOLD = 0.77
CHAIN_THRESHOLD = 0.30
CASCADE_LOW = 0.0
CASCADE_HIGH = 1.0
CALIBRATION_SEEDS = 20  # the first 20 seeds of the suite set the chain threshold and the band
SCREEN_TARGET = 0.97  # the share of the screen's own decisions that must agree with the labels
