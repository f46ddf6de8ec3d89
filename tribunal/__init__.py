"""tribunal: LLM judges as DSPy programs, meta-evaluated exactly, tracked in MLflow."""
__version__ = "0.1.0"
