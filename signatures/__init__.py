"""DSPy signatures: one concept each, docstring = instruction, typed outputs."""
