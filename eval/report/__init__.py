"""Pages a person reads: a run's items with the judge's and the raters' spans, two runs side by side."""
