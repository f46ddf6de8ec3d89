"""``python -m tribunal`` runs the command line."""

from tribunal.cli import main

main()
