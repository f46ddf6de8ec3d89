"""The parts of ``benchmarks/import_reasons.py``: what libraries cost, the analysis of tribunal's
modules, the verdict on each import inside a function, and the rewrite ``--write`` makes."""
