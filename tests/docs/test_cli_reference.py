"""The generated CLI reference names every command and every option of the Typer app."""

from __future__ import annotations

import re

from tribunal.cli.reference_doc import cli_reference_markdown, option_names, tribunal_command, walk


def test_every_command_and_option_is_in_the_reference():
    text = cli_reference_markdown()
    commands = list(walk(tribunal_command()))
    assert len(commands) > 15  # the root, the groups and their sub-commands
    missing = []
    for path, command in commands:
        if f"`{' '.join(path)}`" not in text:
            missing.append(" ".join(path))
        for param in command.params:
            if getattr(param, "hidden", False):
                continue
            for name in option_names(param):
                if name.startswith("-") and name not in text:
                    missing.append(f"{' '.join(path)} {name}")
    assert not missing, missing


def test_each_command_section_lists_its_own_options():
    """An option must appear in its command's section, not only somewhere in the page."""
    text = cli_reference_markdown()
    for path, command in walk(tribunal_command()):
        heading = f"`{' '.join(path)}`\n"
        start = text.index(heading)
        following = text.find("\n#", start + len(heading))
        section = text[start:following if following != -1 else len(text)]
        for param in command.params:
            names = [n for n in option_names(param) if n.startswith("--")]
            if names and not getattr(param, "hidden", False):
                assert re.search(rf"`(-\w, )?{re.escape(names[0])}", section), (" ".join(path), names[0])


def test_config_keys_cover_the_evaluate_config():
    from tribunal.cli.reference_doc import config_keys_markdown

    text = config_keys_markdown()
    for key in ("`lp`", "`mmad.preset`", "`lm.model`", "`sampling.samples`", "`batch.enabled`"):
        assert key in text, key
