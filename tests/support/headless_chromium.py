"""A headless chromium driven over the DevTools protocol (CDP), for tests of the pages tribunal writes.

``chromium_or_skip()`` starts Debian's chromium (``apt-get install chromium``; ``.ci/run`` installs it)
with its own profile folder and no background traffic, and returns a :class:`Browser` whose one tab
records console errors, uncaught exceptions and every network request the page makes. Tests skip, with
the reason, where chromium or websocket-client (the ``test`` extra) is missing.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-default-apps", "--mute-audio", "--remote-debugging-port=0",
         "--remote-allow-origins=*"]
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:", "chrome-error:", "devtools:")


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One chromium tab: navigate, evaluate, screenshot; ``errors`` and ``requests`` as the page made them."""

    def __init__(self, binary: str):
        import websocket  # optional extra: websocket-client (the test extra)

        self.profile = Path(tempfile.mkdtemp(prefix="tribunal-chromium-"))
        self.process = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port = self._port()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            tabs = [t for t in json.loads(answer.read()) if t.get("type") == "page"]
        self.socket = websocket.create_connection(tabs[0]["webSocketDebuggerUrl"], timeout=30,
                                                  suppress_origin=True)
        self._id = 0
        self.errors: list[str] = []
        self.requests: list[str] = []
        self._waiting: list[str] = []  # sessions of child frames (an out-of-process iframe) not yet watched
        self.children: list[str] = []
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.send(f"{domain}.enable")
        # A sandboxed iframe (MLflow's artifact viewer) may run in a process of its own: it is attached, paused
        # until its console and requests are watched too (watch_children).
        self.send("Target.setAutoAttach", autoAttach=True, waitForDebuggerOnStart=True, flatten=True)

    def _port(self) -> int:
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if marker.exists() and marker.read_text().strip():
                return int(marker.read_text().split()[0])
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode}")
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its DevTools port in 30 s")

    def _event(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append("exception: " + str(details.get("exception", {}).get("description") or details.get("text")))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            self.errors.append("log: " + params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])
        elif method == "Target.attachedToTarget":
            self._waiting.append(params["sessionId"])

    def watch_children(self) -> list[str]:
        """Watch the child frames attached so far (console, requests) and let them run; all their sessions."""
        while self._waiting:
            session = self._waiting.pop()
            for domain in ("Runtime", "Log", "Network"):
                self.send(f"{domain}.enable", session=session)
            self.send("Runtime.runIfWaitingForDebugger", session=session)
            self.children.append(session)
        return self.children

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._id += 1
        message = {"id": self._id, "method": method, "params": params} | ({"sessionId": session} if session else {})
        self.socket.send(json.dumps(message))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self._id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._event(message)

    def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` in the page (promises awaited)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.02)
        raise TimeoutError(f"{expression} stayed false for {timeout} s")

    def open(self, url: str, ready: str = "document.body && document.body.getAttribute('data-ready')") -> Any:
        """Navigate and wait until ``ready`` is true (the page's own "drawn" mark by default)."""
        self.send("Page.navigate", url=url)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'")
        return self.wait_for(ready)

    def screenshot(self, path: Path, width: int = 1280, height: int = 900) -> Path:
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        data = self.send("Page.captureScreenshot", format="png")["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def outside_requests(self) -> list[str]:
        """Requests to anything but the file itself (and data:/blob: URLs it made)."""
        return [url for url in self.requests if not url.startswith(LOCAL_SCHEMES)]

    def close(self) -> None:
        try:
            self.socket.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


def chromium_or_skip() -> Browser:
    """A started :class:`Browser`, or the test is skipped with the reason."""
    missing = pytest.fail if os.environ.get("TRIBUNAL_REQUIRE_CHROMIUM") else pytest.skip  # CI: fail, not skip
    binary = chromium_binary()
    if binary is None:
        missing("no chromium on PATH (apt-get install chromium; .ci/run installs it)")
    try:
        import websocket  # noqa: F401  # optional extra: websocket-client (the test extra)
    except ImportError:
        missing("websocket-client is not installed (pip install -e '.[test]')")
    return Browser(binary)
