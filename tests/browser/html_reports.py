#!/usr/bin/env python3
"""Renders the HTML reports in headless Chromium and checks them as a reader
would see them (ctest label `browser`).

For each report (recommend on the canonical profile, audit of the shipped
fleet with consolidation, check with the strict policy) it writes the page
and a full-page screenshot under OUTDIR, then checks through the DevTools
protocol, spoken over --remote-debugging-pipe (NUL-separated JSON on file
descriptors 3 and 4, so no websocket library is needed):
  - every chart is there: its <figure id>, an <svg> with a <title>, a <desc>
    and marks drawn, and the page's headline;
  - no console message, no exception, no error in the browser log;
  - no request other than the page itself: no network, no external asset;
  - the page has no <script>: it reads the same with scripts off.
Exits 77 (ctest: skipped) with a message when Chromium is not installed.

usage: html_reports.py RIGHTSIZE REPO_ROOT OUTDIR
"""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

WIDTH = 1100
REPORTS = [
    ("recommend", ["recommend", "profiles/resnet50-p3.8xlarge.yaml", "-f", "html"], 0,
     ["fit-util", "fit-mem", "fit-rate", "fit-latency", "fit-cost"], "move to"),
    ("audit", ["audit", "profiles/fleet", "--consolidate", "-f", "html"], 0,
     ["audit-savings", "audit-consolidation"], "Fleet audit"),
    ("check", ["check", "profiles/resnet50-p3.8xlarge.yaml", "--policy",
               "tests/data/policy/strict.yaml", "--catalog", "tests/data/catalog/fixture.yaml",
               "-f", "html"], 1,
     ["check-cost", "check1-util", "check1-mem", "check1-latency", "check1-cost"], "Policy check"),
]

PROBE = """JSON.stringify({
  h1: (document.querySelector('h1') || {}).textContent || '',
  scripts: document.scripts.length,
  height: Math.ceil(document.documentElement.scrollHeight),
  charts: Array.from(document.querySelectorAll('figure.chart')).map(f => {
    const s = f.querySelector('svg');
    return {id: f.id, svg: !!s,
            title: s && s.querySelector('title') ? s.querySelector('title').textContent : '',
            desc: s && s.querySelector('desc') ? s.querySelector('desc').textContent : '',
            marks: s ? s.querySelectorAll('polyline,circle,rect,polygon').length : 0,
            width: s ? s.getBoundingClientRect().width : 0};
  })
})"""


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def high_fd(fd):
    """A copy of fd numbered 10 or above, so dup2 onto 3 and 4 cannot clobber it."""
    new = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return new


class Browser:
    """One headless Chromium and the DevTools protocol over its pipe."""

    def __init__(self, exe, workdir):
        to_r, to_w = (high_fd(fd) for fd in os.pipe())
        from_r, from_w = (high_fd(fd) for fd in os.pipe())

        def child():
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.log_path = os.path.join(workdir, "chromium.log")
        self.log = open(self.log_path, "wb")
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
                "--disable-extensions", "--disable-background-networking",
                "--user-data-dir=" + os.path.join(workdir, "profile"),
                "--remote-debugging-pipe", "--enable-logging=stderr", "--v=0", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=child, close_fds=False,
                                     stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        os.close(to_r)
        os.close(from_w)
        self.w, self.r = to_w, from_r
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed its pipe (see %s)" % self.log_path)
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=90):
        want = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            msg = self.read(deadline)
            if msg.get("id") == want:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, name, session, timeout=90):
        deadline = time.monotonic() + timeout
        for msg in self.events:
            if msg.get("method") == name and msg.get("sessionId") == session:
                return msg
        while True:
            msg = self.read(deadline)
            self.events.append(msg)
            if msg.get("method") == name and msg.get("sessionId") == session:
                return msg

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=20)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def render(browser, path, png):
    """Loads path, returns (probe, requests, problems) and writes png."""
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    sess = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Network", "Runtime", "Log"):
        browser.call(domain + ".enable", session=sess)
    browser.call("Emulation.setDeviceMetricsOverride",
                 {"width": WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                 session=sess)
    browser.call("Page.navigate", {"url": "file://" + path}, session=sess)
    browser.wait_event("Page.loadEventFired", sess)
    probe = json.loads(browser.call("Runtime.evaluate", {"expression": PROBE, "returnByValue": True},
                                    session=sess)["result"]["value"])
    shot = browser.call("Page.captureScreenshot",
                        {"format": "png", "captureBeyondViewport": True,
                         "clip": {"x": 0, "y": 0, "width": WIDTH, "height": probe["height"],
                                  "scale": 1}}, session=sess)
    with open(png, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    requests, problems = [], []
    for ev in browser.events:
        if ev.get("sessionId") != sess:
            continue
        m, p = ev.get("method"), ev.get("params", {})
        if m == "Network.requestWillBeSent":
            requests.append(p["request"]["url"])
        elif m == "Runtime.consoleAPICalled":
            problems.append("console.%s: %s" % (p.get("type"), p.get("args")))
        elif m == "Runtime.exceptionThrown":
            problems.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
        elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
            problems.append("log %s: %s" % (p["entry"]["level"], p["entry"].get("text")))
    browser.call("Target.closeTarget", {"targetId": target})
    return probe, requests, problems


def check_report(name, html, probe, requests, problems, charts, headline):
    errors = []
    page_url = "file://" + html
    for url in requests:
        if url != page_url and not url.startswith("data:"):
            errors.append("external request: %s" % url)
    errors += problems
    if probe["scripts"]:
        errors.append("%d <script> elements: the page must read with scripts off" % probe["scripts"])
    if headline not in probe["h1"]:
        errors.append("headline %r lacks %r" % (probe["h1"], headline))
    seen = {c["id"]: c for c in probe["charts"]}
    for cid in charts:
        c = seen.get(cid)
        if c is None:
            errors.append("chart %s missing" % cid)
        elif not (c["svg"] and c["title"] and c["desc"] and c["marks"] >= 3 and c["width"] > 100):
            errors.append("chart %s incomplete: %s" % (cid, c))
    with open(html, encoding="utf-8") as f:
        text = f.read()
    for bad in ("<script", "<link", "<img", "<iframe", "@import", "url("):
        if bad in text:
            errors.append("page contains %r: not self-contained" % bad)
    return ["%s: %s" % (name, e) for e in errors]


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    exe, root, outdir = (os.path.abspath(a) for a in sys.argv[1:])
    chromium = find_chromium()
    if chromium is None:
        print("SKIPPED: chromium is not installed (Debian: apt-get install chromium); "
              "the HTML reports were not rendered in a browser")
        return 77
    os.makedirs(outdir, exist_ok=True)
    errors = []
    with tempfile.TemporaryDirectory() as work:
        browser = Browser(chromium, work)
        try:
            browser.call("Browser.getVersion", timeout=120)
            for name, args, want_rc, charts, headline in REPORTS:
                html = os.path.join(outdir, name + ".html")
                with open(html, "wb") as f:
                    rc = subprocess.run([exe] + args, cwd=root, stdout=f,
                                        stderr=subprocess.DEVNULL).returncode
                if rc != want_rc:
                    errors.append("%s: rightsize exited %d, expected %d" % (name, rc, want_rc))
                    continue
                png = os.path.join(outdir, name + ".png")
                probe, requests, problems = render(browser, html, png)
                errors += check_report(name, html, probe, requests, problems, charts, headline)
                print("%s: %d charts, %d requests, screenshot %s (%d px tall)" %
                      (name, len(probe["charts"]), len(requests), png, probe["height"]))
        finally:
            browser.close()
    for e in errors:
        print("FAIL " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
