"""The domain types every layer shares: hypotheses, judgments, MQM annotations, MT items and their results, run records."""
