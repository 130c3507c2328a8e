"""Headless Chromium (Debian's, with its chromedriver) for the suites that drive Latchkey's page: Tests/Browser
and Tests/OIDC's Apache relying party. One way to start it, so that both get the same options."""
import os

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions


def start_browser():
    """A headless Chromium of its own (its own profile: no cookies or storage shared with another)."""
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
    return driver


def platform_authenticator(user_verified=True):
    """The options of a platform authenticator (CTAP2, internal, discoverable credentials) that verifies
    the user unless told not to, as `driver.add_virtual_authenticator` takes them."""
    return VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True,
        has_user_verification=True, is_user_consenting=True, is_user_verified=user_verified,
    )
