"""Equivalence rules behind one interface, looked up by name in :data:`registry.RULES`."""
