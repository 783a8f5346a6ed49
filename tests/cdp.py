"""Headless Chromium driven through the DevTools protocol over a pipe (``--remote-debugging-pipe``): no websocket,
no extra package. The browser tests load a page, run JavaScript in it (read the DOM, click a button), and take
screenshots of a fixed-size window.

Chromium reads the protocol's JSON messages on its file descriptor 3 and writes its answers on 4, each message
ending with a NUL byte. One page (a target attached with ``flatten``) is enough for the tests.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--force-device-scale-factor=1", "--font-render-hinting=none", "--disable-lcd-text"]
SKIP_REASON = "needs Chromium for the browser test: apt-get install chromium"


class BrowserError(RuntimeError):
    """Chromium answered a command with an error, a script threw, or the browser went away."""


class Chromium:
    """One headless Chromium with one page of ``width`` × ``height`` pixels; use as a context manager."""

    def __init__(self, profile: Path, width: int = 1100, height: int = 900, timeout: float = 60.0) -> None:
        self.timeout = timeout
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)]  # out of 3 and 4's way

        def pipes_at_3_and_4() -> None:
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}",
                                      f"--window-size={width},{height}", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     pass_fds=(3, 4), preexec_fn=pipes_at_3_and_4)
        for fd in (to_browser, from_browser, *high):
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.command("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                     mobile=False)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Quit the browser (the process this object started)."""
        if self.proc.poll() is None:
            try:
                self.send("Browser.close")
            except (BrowserError, OSError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for fd in (self._read, self._write):
            try:
                os.close(fd)
            except OSError:
                pass

    # ----- the protocol ---------------------------------------------------------------------------------------------
    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed the pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(raw)

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command (to the browser, or to the page's ``session``) and return its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._message(deadline)
            if answer.get("id") != self._next_id:
                continue  # an event, or the answer to nothing we wait for
            if "error" in answer:
                raise BrowserError(f"{method}: {answer['error'].get('message')}")
            return answer["result"]

    def command(self, method: str, **params: Any) -> dict[str, Any]:
        """A command to the page."""
        return self.send(method, self.session, **params)

    # ----- what the tests do --------------------------------------------------------------------------------------
    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.command("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError(f"{expression[:60]}…: {details.get('exception', {}).get('description', details)}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float | None = None) -> Any:
        """Poll a JavaScript expression until it is truthy; its value."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise BrowserError(f"waited in vain for {expression}")

    def open(self, url: str) -> None:
        """Load ``url`` and wait until the page has loaded."""
        self.command("Page.navigate", url=url)
        time.sleep(0.1)
        self.wait_for("document.readyState === 'complete' && location.href !== 'about:blank'")

    def screenshot(self) -> bytes:
        """A PNG of the window."""
        return base64.b64decode(self.command("Page.captureScreenshot", format="png")["data"])
