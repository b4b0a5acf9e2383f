"""A small client of Chromium's DevTools protocol over a pipe, with python3's
standard library only: headless Debian `chromium` with --remote-debugging-pipe
reads commands on its fd 3 and writes answers and events on its fd 4, each a
JSON object ended by a NUL byte.

Used by tests/e2e/test_html.py (the HTML report in a real browser: console
errors, network requests, the DOM, a screenshot) and tools/html-screenshot.py
(the README's picture). Nothing here reaches the network: pages are files."""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


class BrowserError(Exception):
    """Chromium could not be started, or stopped answering."""


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    def __init__(self, timeout=30):
        path = chromium_path()
        if not path:
            raise BrowserError("chromium is not installed (tools/install-deps.sh installs Debian's)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="gt-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        argv = [path, "--headless", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio",
                "--user-data-dir=" + self.profile, "about:blank"]
        if os.geteuid() == 0:
            argv.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox

        def fds_3_and_4():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(argv, preexec_fn=fds_3_and_4, pass_fds=(3, 4),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        try:
            self.version = self.call("Browser.getVersion")
        except BrowserError:
            self.close()
            raise

    def stderr_tail(self):
        if self.proc.poll() is None or not self.proc.stderr:
            return ""
        return self.proc.stderr.read().decode(errors="replace")[-800:]

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer in %ss" % self.timeout)
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed the pipe: %s" % self.stderr_tail())
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        """Sends a command and waits for its answer; events meanwhile are kept."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise BrowserError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, session, deadline):
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method and e.get("sessionId") == session:
                    return self.events.pop(i)
            m = self._read_message(deadline)
            if "method" in m:
                self.events.append(m)

    def close(self):
        if self.proc.poll() is None:
            try:
                self.call("Browser.close")
                self.proc.wait(timeout=10)
            except (BrowserError, OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for fd in (self.to_chrome, self.from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.proc.stderr:
            self.proc.stderr.close()
        shutil.rmtree(self.profile, True)


class Page:
    """One tab: what it logged and requested while it loaded a file."""

    def __init__(self, browser, width=1000, height=800):
        self.b = browser
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.cmd(domain + ".enable")
        self.resize(width, height)

    def cmd(self, method, params=None):
        return self.b.call(method, params, self.session)

    def resize(self, width, height, mobile=False):
        self.cmd("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})

    def load(self, path):
        """Navigates to the file; returns its URL once the load event fired."""
        url = "file://" + os.path.abspath(path)
        self.b.events = [e for e in self.b.events if e.get("sessionId") != self.session]
        self.cmd("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", self.session, time.monotonic() + self.b.timeout)
        return url

    def drain(self):
        """Reads what is pending (a few ms), so late events are counted too."""
        deadline = time.monotonic() + 0.2
        try:
            while True:
                m = self.b._read_message(deadline)
                if "method" in m:
                    self.b.events.append(m)
        except BrowserError:
            pass

    def mine(self, method):
        return [e["params"] for e in self.b.events if e["method"] == method and e.get("sessionId") == self.session]

    def problems(self):
        """Script errors, console errors and warnings, dialogs, in words."""
        self.drain()
        out = ["exception: %s" % e["exceptionDetails"].get("text") for e in self.mine("Runtime.exceptionThrown")]
        out += ["console %s: %s" % (e["type"], e.get("args")) for e in self.mine("Runtime.consoleAPICalled")
                if e["type"] in ("error", "warning", "assert")]
        out += ["log %s: %s" % (e["entry"]["level"], e["entry"].get("text")) for e in self.mine("Log.entryAdded")
                if e["entry"]["level"] in ("error", "warning")]
        out += ["dialog: %s" % e.get("message") for e in self.mine("Page.javascriptDialogOpening")]
        return out

    def requests(self):
        return [e["request"]["url"] for e in self.mine("Network.requestWillBeSent")]

    def eval(self, expression):
        r = self.cmd("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            raise BrowserError("evaluate: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def screenshot(self, out_png, width=1000, max_height=12000):
        """The whole page, width pixels wide, into out_png."""
        self.resize(width, 600)
        height = int(self.eval("Math.ceil(document.documentElement.scrollHeight)"))
        self.resize(width, max(200, min(height, max_height)))
        data = self.cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})["data"]
        with open(out_png, "wb") as f:
            f.write(base64.b64decode(data))
        return height
