"""Fixtures of the browser tests: a server of the debug binary on free
loopback ports, and a headless Chromium page."""

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

OPERATOR_TOKEN = "browser-test-operator-token"
ROOT = Path(__file__).resolve().parents[2]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running `loyalty serve` and where it listens."""

    def __init__(self, work: Path):
        self.campaigns = work / "campaigns"
        shutil.copytree(ROOT / "campaigns", self.campaigns)
        api_port, admin_port = free_port(), free_port()
        self.api = f"http://127.0.0.1:{api_port}"
        self.admin = f"http://127.0.0.1:{admin_port}"
        self.log_path = work / "server.log"
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [
                os.environ.get("LOYALTY_BIN", str(ROOT / "target/debug/loyalty")),
                "serve",
                "--db", "mem://",
                "--listen", f"127.0.0.1:{api_port}",
                "--admin-listen", f"127.0.0.1:{admin_port}",
                "--admin-token", OPERATOR_TOKEN,
                "--campaigns", str(self.campaigns),
                # The webhook receivers of the tests are on loopback.
                "--webhooks-allow-private",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.admin}/login", timeout=1)
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.2)
        raise RuntimeError(f"the server did not start; see {work / 'server.log'}")

    def check(self, key: str, secret: str) -> int:
        """The status of GET /check on the integrator API with a key."""
        request = urllib.request.Request(
            f"{self.api}/check",
            headers={"X-Api-Key": key, "X-Api-Secret": secret, "X-Api-Version": "1"},
        )
        try:
            return urllib.request.urlopen(request, timeout=10).status
        except urllib.error.HTTPError as refused:
            return refused.code

    def bootstrap_key(self):
        """The demo Company's key and secret, as the first start printed them."""
        import re

        log = (self.log_path).read_text()
        return (
            re.search(r"lk_[0-9a-f]+", log).group(0),
            re.search(r"ls_[0-9a-f]+", log).group(0),
        )

    def call(self, method: str, path: str, body=None):
        """A call of the integrator API with the demo Company's key."""
        import json

        key, secret = self.bootstrap_key()
        request = urllib.request.Request(
            f"{self.api}{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={
                "X-Api-Key": key,
                "X-Api-Secret": secret,
                "X-Api-Version": "1",
                "Content-Type": "application/json",
            },
        )
        return json.load(urllib.request.urlopen(request, timeout=10))

    def operator_call(self, method: str, path: str, body=None):
        """A call of the back office's API (`/api...`) as the operator."""
        import json

        request = urllib.request.Request(
            f"{self.admin}/api{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={
                "Authorization": f"Bearer {OPERATOR_TOKEN}",
                "Content-Type": "application/json",
            },
        )
        return json.load(urllib.request.urlopen(request, timeout=10))

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


@pytest.fixture()
def server():
    work = Path(tempfile.mkdtemp(prefix="loyalty-browser-"))
    running = Server(work)
    yield running
    running.stop()
    shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="session")
def browser():
    # The flags keep Chromium from reaching out at start (this machine's
    # network is closed) and from needing a sandbox as root.
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=os.environ.get("LOYALTY_CHROMIUM", "/usr/bin/chromium"),
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser, server):
    context = browser.new_context(base_url=server.admin)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.admin)
    opened = context.new_page()
    yield opened
    context.close()
