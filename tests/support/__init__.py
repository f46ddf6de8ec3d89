"""Test helpers shared by the MT judge tests and the runner benchmark (not collected as tests)."""
