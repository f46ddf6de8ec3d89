"""Tuning judges against human labels; metrics for optimizers; export and load."""
