#!/usr/bin/env python3
"""Loads the AttestGuard console's pages in headless Chromium (Debian's `chromium`), as an analyst would.

It signs in through the login form (kept as login.png and login.html) with the API key read from --key-file (typed into
the form, posted by the browser: the key never goes in a URL), then visits each page and keeps, per page, a screenshot (<name>.png) and the
DOM as the browser built it (<name>.html). browser.json records what a test checks beyond the pages: the session
cookie as Chromium stored it (HttpOnly, Secure, SameSite, expiry), every console message (a CSP violation shows
there), and per page its final URL, its number of <script> elements and the text of its `td.action` cells.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: file descriptors 3 and 4, JSON
messages ended by NUL), so the Python standard library is enough. Exit 0 when every page loaded, 1 otherwise.

With --add-entries PATH=TEXT it also fills the entries form of the run-time list page PATH with TEXT and submits it,
as an analyst would (browser.json's "added": where the browser landed and the entries the page then shows); with
--forge it then submits, from a page of another origin (a data: URL), a form that posts entries to the same list
without the console's token, as a hostile site would ("forged": where that landed and what it showed), and loads the
list page again ("afterForgery": its entries).

With --review PATH it works the review queue page PATH as an analyst would: it opens the first item, claims it by its
form and approves it with a note; opens the next, claims it and rejects it; and, with --forge, posts a decision on a
third item from a page of another origin without the console's token ("review": per step the page's URL and the
item's status as the page shows it, and the third item's status after the forgery).

usage: console-browser.py --base URL --key-file FILE --out DIR [--timeout S] [--add-entries PATH=TEXT] [--review PATH] [--forge]
                          name=path ...
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, executable, timeout):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="attestguard-console-browser-")
        to_chrome_read, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_write = os.pipe()
        command = [
            executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--hide-scrollbars", "--window-size=1280,1400", f"--user-data-dir={self.profile}",
            "--remote-debugging-pipe", "about:blank",
        ]
        # The pipe ends go to descriptors 3 and 4 of the browser, where --remote-debugging-pipe expects them.
        shell = f'exec "$@" 3<&{to_chrome_read} 4>&{from_chrome_write}'
        self.process = subprocess.Popen(
            ["/bin/sh", "-c", shell, "sh"] + command, pass_fds=(to_chrome_read, from_chrome_write),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_read)
        os.close(from_chrome_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        return self.wait(lambda m: m.get("id") == self.next_id, f"the answer to {method}")

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def wait(self, matches, what):
        deadline = time.monotonic() + self.timeout
        for index, event in enumerate(self.events):
            if matches(event):
                return self.events.pop(index)
        while True:
            try:
                message = self.receive(deadline)
            except TimeoutError:
                raise RuntimeError(f"no {what} within {self.timeout} s") from None
            if "error" in message and "id" in message and matches(message):
                raise RuntimeError(f"{what}: {message['error']}")
            if matches(message):
                return message
            if "method" in message:
                self.events.append(message)

    def open_tab(self):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["result"]["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["result"]["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 1400, "deviceScaleFactor": 1, "mobile": False})

    def loaded(self):
        self.wait(lambda m: m.get("method") == "Page.loadEventFired", "page load")

    def navigate(self, url):
        self.events = [e for e in self.events if e.get("method") != "Page.loadEventFired"]
        self.send("Page.navigate", {"url": url})
        self.loaded()

    def evaluate(self, expression):
        answer = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return answer["result"]["result"].get("value")

    def messages(self):
        found = []
        for event in self.events:
            if event.get("method") == "Log.entryAdded":
                entry = event["params"]["entry"]
                found.append({"source": entry.get("source"), "level": entry.get("level"), "text": entry.get("text")})
            elif event.get("method") == "Runtime.consoleAPICalled":
                found.append({"source": "console", "level": event["params"].get("type"), "text": str(event["params"].get("args"))})
        return found

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def keep(browser, folder, name):
    """Writes the page's DOM as the browser built it (<name>.html) and a screenshot of it (<name>.png)."""
    html = browser.evaluate("document.documentElement.outerHTML")
    with open(os.path.join(folder, f"{name}.html"), "w") as file:
        file.write(html or "")
    shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
    with open(os.path.join(folder, f"{name}.png"), "wb") as file:
        file.write(base64.b64decode(shot["result"]["data"]))


def work_review_queue(browser, base, path, folder, forge):
    """Claims and approves the queue's first item, claims and rejects the second, by the pages' forms; with `forge`,
    posts a decision on the third from another origin without the token. Returns what each step showed."""
    status_js = "(document.querySelector('[data-figure=status]') || {}).textContent"
    browser.navigate(base + path)
    keep(browser, folder, "review-queue")
    items = browser.evaluate("[...document.querySelectorAll('table.review-items a')].map(link => link.href)") or []
    if len(items) < (3 if forge else 2):
        raise RuntimeError(f"the review queue shows {len(items)} items")
    steps = {"items": len(items)}
    for name, url, decision in (("approved", items[0], "approve"), ("rejected", items[1], "reject")):
        browser.navigate(url)
        browser.evaluate("document.querySelector('form.change button[name=claim]').form.submit(); true")
        browser.loaded()
        claimed = browser.evaluate(status_js)
        browser.evaluate(
            "const form = document.querySelector('form.change textarea[name=note]').form;"
            + f" form.querySelector('input[name=decision][value={decision}]').checked = true;"
            + f" form.querySelector('textarea[name=note]').value = {json.dumps('decided in the browser: ' + decision)};"
            + " form.submit(); true"
        )
        browser.loaded()
        keep(browser, folder, f"review-{name}")
        steps[name] = {"url": browser.evaluate("location.href"), "claimed": claimed, "status": browser.evaluate(status_js),
                       "note": browser.evaluate("document.body.innerText.includes('decided in the browser: ' + " + json.dumps(decision) + ")")}
    if forge:
        action = items[2].split("?", 1)[0] + "/decide"
        page = "<form method=post action=" + json.dumps(action) + "><input name=decision value=reject></form>"
        browser.navigate("data:text/html;base64," + base64.b64encode(page.encode()).decode())
        browser.evaluate("document.forms[0].submit(); true")
        browser.loaded()
        keep(browser, folder, "review-forged")
        steps["forged"] = {"url": browser.evaluate("location.href"), "text": browser.evaluate("document.body ? document.body.innerText : ''")}
        browser.navigate(items[2])
        steps["afterForgery"] = {"status": browser.evaluate(status_js)}
    return steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", required=True, help="the listener serving /console, e.g. http://127.0.0.1:9090")
    parser.add_argument("--key-file", required=True, help="a file holding an analyst or admin API key")
    parser.add_argument("--out", required=True, help="the folder the screenshots, DOMs and browser.json go to")
    parser.add_argument("--timeout", type=float, default=120, help="seconds one browser step may take")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--add-entries", help="PATH=TEXT: submit TEXT in the entries form of the list page PATH")
    parser.add_argument("--forge", action="store_true", help="then post to that list, or decide a third review item, from another origin, without the token")
    parser.add_argument("--review", help="PATH: claim and approve the first item of the review queue page PATH, reject the second")
    parser.add_argument("pages", nargs="*", help="name=path, e.g. verdicts=/console?range=1h")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    with open(arguments.key_file) as file:
        key = file.read().strip()
    base = arguments.base.rstrip("/")
    report = {"pages": {}, "cookies": [], "messages": [], "login": None}
    browser = Browser(arguments.chromium, arguments.timeout)
    status = 0
    try:
        browser.open_tab()
        browser.navigate(base + "/console/login")
        keep(browser, arguments.out, "login")
        # The browser posts the form: the key is typed into the field, never put in a URL.
        browser.evaluate(
            "document.getElementById('key').value = " + json.dumps(key) + "; document.querySelector('form.login').submit(); true"
        )
        browser.loaded()
        report["login"] = browser.evaluate("location.pathname")
        for spec in arguments.pages:
            name, path = spec.split("=", 1)
            browser.navigate(base + path)
            keep(browser, arguments.out, name)
            report["pages"][name] = {
                "url": browser.evaluate("location.href"),
                "scripts": browser.evaluate("document.scripts.length"),
                "actions": browser.evaluate("[...document.querySelectorAll('td.action')].map(cell => cell.textContent)"),
                "stylesheetApplied": browser.evaluate("getComputedStyle(document.body).backgroundColor"),
            }
        if arguments.add_entries:
            path, text = arguments.add_entries.split("=", 1)
            entries_js = "[...document.querySelectorAll('table.entries code')].map(cell => cell.textContent)"
            browser.navigate(base + path)
            browser.evaluate(
                "document.querySelector('form.change textarea[name=entries]').value = " + json.dumps(text)
                + "; document.querySelector('form.change').submit(); true"
            )
            browser.loaded()
            keep(browser, arguments.out, "list-added")
            report["added"] = {"url": browser.evaluate("location.href"), "entries": browser.evaluate(entries_js)}
            if arguments.forge:
                action = base + path.split("?", 1)[0] + "/add"
                page = (
                    "<form method=post action=" + json.dumps(action) + ">"
                    "<input name=entries value='192.0.2.66'></form>"
                )
                browser.navigate("data:text/html;base64," + base64.b64encode(page.encode()).decode())
                browser.evaluate("document.forms[0].submit(); true")
                browser.loaded()
                keep(browser, arguments.out, "list-forged")
                report["forged"] = {
                    "url": browser.evaluate("location.href"),
                    "text": browser.evaluate("document.body ? document.body.innerText : ''"),
                }
                browser.navigate(base + path)
                report["afterForgery"] = {"entries": browser.evaluate(entries_js)}
        if arguments.review:
            report["review"] = work_review_queue(browser, base, arguments.review, arguments.out, arguments.forge)
        report["cookies"] = browser.send("Network.getCookies", {"urls": [base + "/console"]})["result"]["cookies"]
        for cookie in report["cookies"]:
            cookie["value"] = "(%d characters)" % len(cookie.get("value", ""))
    except Exception as error:  # the report says what failed; the test reads it
        report["error"] = str(error)
        status = 1
    finally:
        report["messages"] = browser.messages()
        browser.close()
    with open(os.path.join(arguments.out, "browser.json"), "w") as file:
        json.dump(report, file, indent=2, sort_keys=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
