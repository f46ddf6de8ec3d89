"""mkdocs hooks: pages generated from the code when the site is built.

``<!-- cli-reference -->`` becomes every command and option of ``tribunal`` (from the Typer app);
``<!-- config-keys -->`` the keys of ``mt evaluate --config`` (from the pydantic model).
"""

from __future__ import annotations

GENERATED = {
    "<!-- cli-reference -->": "cli_reference_markdown",
    "<!-- config-keys -->": "config_keys_markdown",
}


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Replace each marker present in the page with the text generated for it."""
    from tribunal.cli import reference_doc

    for marker, function in GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, getattr(reference_doc, function)())
    return markdown
