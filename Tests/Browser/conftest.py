"""A real Chromium (Debian's) with a WebDriver virtual authenticator, against a real `latchkey serve`."""
import os
import pathlib
import sys

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "Support"))
from latchkey_server import ROOT, Server  # noqa: E402

SCREENSHOTS = pathlib.Path(os.environ.get("LATCHKEY_SCREENSHOTS", ROOT / ".build" / "browser-screenshots"))


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
