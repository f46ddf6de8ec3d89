"""``tribunal runs view --serve``: one page served on 127.0.0.1, nothing else of the disk."""

from __future__ import annotations

import http.server
from pathlib import Path
from typing import Callable


def page_handler(page: Path) -> type[http.server.BaseHTTPRequestHandler]:
    """A handler that answers ``/`` and ``/<page name>`` with the page and 404 to every other path."""
    body = page.read_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path.split("?")[0] not in ("/", f"/{page.name}"):
                self.send_error(404, "only the page is served")
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # quiet: the terminal shows the address only
            pass

    return Handler


def page_server(page: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """A server of ``page`` bound to 127.0.0.1 (``port`` 0: any free port); the caller runs and closes it."""
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), page_handler(page))


def serve_page(page: Path, port: int, announce: Callable[[str], object]) -> None:
    """Serve ``page`` until Ctrl-C; ``announce(url)`` once it listens."""
    server = page_server(page, port)
    announce(f"http://127.0.0.1:{server.server_address[1]}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
