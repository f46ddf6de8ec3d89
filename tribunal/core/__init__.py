"""The core of tribunal, the layer everything imports: the domain types every layer shares (hypotheses,
judgments, MQM annotations, MT items and their results, run records), the judge registry (:mod:`.judges`)
and the judging service (:mod:`.service`)."""
