"""Datasets and formats, meta-evaluation statistics, runners, MLflow tracking."""
