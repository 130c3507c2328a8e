"""The page over `latchkey serve --tls-cert --tls-key` (issue 33, item 3) in a real Chromium that trusts the
test's own CA the way a person's browser trusts a real one: the CA is added to an NSS database (certutil) in a
home directory of this Chromium's own, so the server's certificate is checked in full — chain, name,
validity — and no certificate error is ignored (no --ignore-certificate-errors, no key pinning flag). The page
loads over HTTP/2, a passkey signs up and in, and the session cookie is Secure. A certificate from a CA that
is not in the database is refused, which shows the trust is real."""
import os
import shutil
import subprocess

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from conftest import register, text_in, virtual_authenticator, visible

from certificates import CertificateAuthority
from latchkey_server import Server

CERTUTIL = shutil.which("certutil")


def trusting_browser(home, ca_certificate):
    """A headless Chromium whose home holds an NSS database trusting `ca_certificate` for TLS servers."""
    assert CERTUTIL, "certutil is missing (Debian's libnss3-tools; scripts/provision installs it)"
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    subprocess.run([CERTUTIL, "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True, capture_output=True)
    subprocess.run([CERTUTIL, "-d", f"sql:{nssdb}", "-A", "-t", "C,,", "-n", "latchkey-test-ca", "-i", str(ca_certificate)],
                   check=True, capture_output=True)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    options.add_argument("--headless=new")
    options.add_argument("--window-size=420,900")
    options.add_argument("--disable-gpu")
    options.add_argument("--disable-dev-shm-usage")
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    service = Service(executable_path="/usr/bin/chromedriver", env={**os.environ, "HOME": str(home)})
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_script_timeout(30)
    return driver


@pytest.fixture
def tls_setup(tmp_path):
    ca = CertificateAuthority(tmp_path / "ca")
    chain, key = ca.issue("server", serial=0x4004)
    driver = trusting_browser(tmp_path / "home", ca.certificate)
    yield ca, chain, key, driver
    driver.quit()


def test_the_page_over_https_and_http2_signs_up_and_in_with_a_passkey(tls_setup):
    ca, chain, key, browser = tls_setup
    with Server(tls=(chain, key, ca.certificate)) as server:
        virtual_authenticator(browser)
        browser.get(server.origin + "/")
        visible(browser, "welcome")
        assert browser.current_url.startswith(f"https://localhost:{server.port}/")
        protocol = browser.execute_script("return performance.getEntriesByType('navigation')[0].nextHopProtocol")
        assert protocol == "h2", protocol
        assert browser.execute_script("return window.isSecureContext") is True

        register(browser, "Grace over TLS")
        cookies = {cookie["name"]: cookie for cookie in browser.get_cookies()}
        session = cookies.get("__Host-latchkey_session")
        assert session is not None, cookies
        assert session["secure"] is True and session["httpOnly"] is True

        browser.find_element(By.ID, "logout").click()
        visible(browser, "welcome")
        browser.find_element(By.ID, "login").click()
        visible(browser, "account")
        text_in(browser, "status", "Signed in as Grace over TLS.")
        # Every resource the page loaded came over HTTP/2.
        protocols = set(browser.execute_script(
            "return performance.getEntriesByType('resource').map((e) => e.nextHopProtocol).filter((p) => p)"))
        assert protocols <= {"h2"}, protocols


def test_a_certificate_from_another_ca_is_refused(tls_setup, tmp_path):
    _, _, _, browser = tls_setup
    stranger = CertificateAuthority(tmp_path / "stranger", name="Not trusted")
    chain, key = stranger.issue("server", serial=0x5005)
    with Server(tls=(chain, key, stranger.certificate)) as server:
        browser.get(server.origin + "/")
        assert not browser.find_elements(By.ID, "welcome"), "the page loaded from an untrusted certificate"
        assert "ERR_CERT_AUTHORITY_INVALID" in browser.page_source or "Privacy error" in browser.title, browser.title
