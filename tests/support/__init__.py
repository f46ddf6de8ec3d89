"""Test helpers shared by several test packages (not collected as tests)."""
