"""Pairwise equivalence judges: hypotheses, the perturbation suite, rules and the audit."""
