"""CI runs the bad-input replay against the installed command: any traceback fails the build."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).with_name("replay_bad_inputs.py")


def test_every_replayed_bad_input_ends_in_one_clean_line():
    tribunal = Path(sys.executable).parent / "tribunal"
    done = subprocess.run([sys.executable, str(SCRIPT), "--tribunal", str(tribunal), "--jobs", "2"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stdout
    assert " failed" in done.stdout.splitlines()[-1] and done.stdout.splitlines()[-1].endswith("; 0 failed")
