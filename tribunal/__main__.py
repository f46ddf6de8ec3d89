"""``python -m tribunal`` runs the command line."""

from tribunal.cli import main

if __name__ == "__main__":  # importing the module (the docs' API generator walks the package) runs nothing
    main()
