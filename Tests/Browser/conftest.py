"""A real Chromium (Debian's) with a WebDriver virtual authenticator, against a real `latchkey serve`."""
import os
import pathlib
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = pathlib.Path(os.environ.get("LATCHKEY_SCREENSHOTS", ROOT / ".build" / "browser-screenshots"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, *flags):
        self.port = free_port()
        self.url = f"http://localhost:{self.port}"
        self.directory = tempfile.TemporaryDirectory()
        binary = os.environ.get("LATCHKEY_BIN", str(ROOT / ".build" / "debug" / "latchkey"))
        self.log = open(os.path.join(self.directory.name, "server.log"), "w")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port), "--database", f"sqlite:{self.directory.name}/db.sqlite", *flags],
            stdout=self.log, stderr=self.log,
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2).read()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("latchkey serve did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()
        self.directory.cleanup()


@pytest.fixture
def server(request):
    instance = Server(*getattr(request, "param", ()))
    yield instance
    instance.stop()


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    options.add_argument("--headless=new")
    options.add_argument("--window-size=420,900")
    options.add_argument("--disable-gpu")
    options.add_argument("--disable-dev-shm-usage")
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


def virtual_authenticator(driver, user_verified=True):
    """A fresh platform authenticator (at most 3 discoverable credentials each)."""
    options = VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True,
        has_user_verification=True, is_user_consenting=True, is_user_verified=user_verified,
    )
    driver.add_virtual_authenticator(options)


def screenshot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
