"""A real Chromium (Debian's) with a WebDriver virtual authenticator, against a real `latchkey serve`."""
import os
import pathlib
import sys

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

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


def wait(driver, seconds=20):
    return WebDriverWait(driver, seconds)


def visible(driver, element_id):
    wait(driver).until(EC.visibility_of_element_located((By.ID, element_id)))
    return driver.find_element(By.ID, element_id)


def text_in(driver, element_id, fragment):
    wait(driver).until(EC.text_to_be_present_in_element((By.ID, element_id), fragment))


def message_texts(driver):
    """What the page is telling the person: (status, error)."""
    return (driver.find_element(By.ID, "status").text, driver.find_element(By.ID, "error").text)


def autofill_settled(driver, seconds=15):
    """Waits until the page's background autofill request has settled and returns its state, which the
    page keeps in `data-autofill` on <body>: "waiting" (the browser holds the request open until the
    person picks a passkey), "ended" (it finished, however), "unavailable" (no conditional mediation), or
    "off" (not started: the person is signed in or the browser has no passkeys)."""
    settled = ("waiting", "ended", "unavailable", "off")
    try:
        wait(driver, seconds).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-autofill") in settled)
    except Exception:
        pass
    state = driver.find_element(By.TAG_NAME, "body").get_attribute("data-autofill")
    if state == "waiting":
        # A request that is still open may yet end (Chromium's virtual authenticator answers at once when
        # it holds a passkey): give it the time a human would take to notice a message.
        try:
            wait(driver, 3).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-autofill") == "ended")
        except Exception:
            pass
        state = driver.find_element(By.TAG_NAME, "body").get_attribute("data-autofill")
    return state
