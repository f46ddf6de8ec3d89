"""Write a file so that a crash leaves either the old file or the new one, never half of either.

The file gets the mode an ordinary ``open(path, "w")`` would give it (0666 less the umask, so
0644 under the usual umask 022): ``tempfile.mkstemp`` creates 0600 files, which other tools and
users of a shared machine could not read.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process umask (read from /proc where possible: setting it to read it is racy)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode of a newly created regular file: 0666 less the umask."""
    return 0o666 & ~current_umask()


def write_text_atomically(path: str | Path, text: str) -> Path:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), new_file_mode())
            out.write(text)
        os.replace(tmp, path)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError) and err.filename in (None, tmp):  # e.g. a full disk: name the file meant
            raise OSError(err.errno, err.strerror or str(err), str(path)) from err
        raise
    return path
