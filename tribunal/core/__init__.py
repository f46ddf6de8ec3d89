"""The core of tribunal: the judge registry and the judging service."""
