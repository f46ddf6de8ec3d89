"""The command tree as click sees it: every command path and its options (for the help and coverage tests)."""

from __future__ import annotations

from typing import Iterator


def leaf_commands() -> Iterator[tuple[tuple[str, ...], object]]:
    """``(("mt", "evaluate"), click_command)`` for every command a user can run."""
    import typer.main

    from tribunal.cli import app

    def walk(command, path):
        children = getattr(command, "commands", None)
        if children:
            for name, child in children.items():
                yield from walk(child, path + (name,))
        else:
            yield path, command

    yield from walk(typer.main.get_command(app), ())


def options(command) -> list[tuple[str, ...]]:
    """Each option of ``command`` as its names (``("--cache", "--no-cache")``), ``--help`` left out."""
    found = []
    for param in command.params:
        names = tuple(n for n in (*param.opts, *param.secondary_opts) if n.startswith("--"))
        if names and names != ("--help",) and param.param_type_name == "option":
            found.append(names)
    return found
