"""Every option of every command is exercised by some CLI test.

A cheap guard beside the tests that check each option's effect (``test_cli_options_*.py`` and the
package tests): an option no test file passes to its command fails here, so a new option cannot
land untested. A test file counts for a command when it names the command (``"evaluate"``) and
passes the option (``"--topic"``).
"""

from __future__ import annotations

from pathlib import Path

from tests.tribunal.commands import leaf_commands, options

TESTS = Path(__file__).resolve().parents[1]


def test_every_option_of_every_command_is_passed_by_a_test():
    texts = [p.read_text(encoding="utf-8") for p in TESTS.rglob("*.py") if p.name != Path(__file__).name]
    missing = []
    for path, command in leaf_commands():
        mentioning = [t for t in texts if f'"{path[-1]}"' in t]
        assert mentioning, f"no test runs tribunal {' '.join(path)}"
        for names in options(command):
            if not any(f'"{name}"' in text for text in mentioning for name in names):
                missing.append(f"tribunal {' '.join(path)} {' / '.join(names)}")
    assert not missing, "options no test exercises:\n" + "\n".join(missing)
