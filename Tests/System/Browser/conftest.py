"""A real Chromium (Debian's) with a WebDriver virtual authenticator, against a real `latchkey serve`."""
import os
import pathlib

import pytest
from selenium.webdriver.remote.command import Command
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from chromium import accessible, axe_violations, platform_authenticator, start_browser  # noqa: F401 (the suites import them from here)
from latchkey_server import ROOT

SCREENSHOTS = pathlib.Path(os.environ.get("LATCHKEY_SCREENSHOTS", ROOT / ".build" / "browser-screenshots"))


@pytest.fixture
def browser():
    driver = start_browser()
    yield driver
    driver.quit()


@pytest.fixture
def other_browser():
    """A second browser, as another device would be: nothing of `browser`'s session is in it."""
    driver = start_browser()
    yield driver
    driver.quit()


def virtual_authenticator(driver, user_verified=True, synced=False, prf=False):
    """A fresh platform authenticator (at most 3 discoverable credentials each). Its passkeys are bound to
    it (backup eligibility and state clear, Chromium's default) unless `synced` (both set, as a password
    manager that syncs would). Not `user_verified`: a request that needs verification fails with
    NotAllowedError, as when the person cancels. `prf`: it supports CTAP2's hmac-secret, so its passkeys
    can evaluate a PRF (WebAuthn's prf extension)."""
    options = platform_authenticator(user_verified)
    if not synced and not prf:
        driver.add_virtual_authenticator(options)
        return
    # Selenium's options have neither backup flags nor PRF; chromedriver takes WebAuthn L3's
    # defaultBackupEligibility and defaultBackupState in the same command, and PRF as the WebDriver
    # extension identifier "prf" in `extensions` (CDP's own hasPrf it ignores). Kept where Selenium keeps
    # its own, so that remove_virtual_authenticator() and get_credentials() work on it.
    settings = options.to_dict()
    if synced:
        settings.update({"defaultBackupEligibility": True, "defaultBackupState": True})
    if prf:
        settings["extensions"] = ["prf"]
    driver._authenticator_id = driver.execute(Command.ADD_VIRTUAL_AUTHENTICATOR, settings)["value"]


def screenshot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def element_screenshot(element, name):
    """One element (a card) as a PNG under SCREENSHOTS."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    element.screenshot(str(SCREENSHOTS / f"{name}.png"))


def activity(driver):
    """The sentences of the account's Recent activity card, newest first (read in one script: the page
    draws the list again whenever it refreshes, which would leave element references stale)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#activity > li .activity-what')].map((e) => e.textContent);")


def wait(driver, seconds=20):
    return WebDriverWait(driver, seconds)


def visible(driver, element_id):
    wait(driver).until(EC.visibility_of_element_located((By.ID, element_id)))
    return driver.find_element(By.ID, element_id)


def text_in(driver, element_id, fragment):
    wait(driver).until(EC.text_to_be_present_in_element((By.ID, element_id), fragment))


def register(driver, name):
    """Signs up on the page with a passkey named `name` and waits for the account view."""
    field = visible(driver, "passkey-name")
    field.clear()
    field.send_keys(name)
    driver.find_element(By.ID, "register").click()
    visible(driver, "account")


def change_display_name(driver, name):
    """Saves a new display name through the account form and waits for "Saved."."""
    field = driver.find_element(By.ID, "display-name")
    field.clear()
    field.send_keys(name)
    driver.find_element(By.ID, "update").click()
    text_in(driver, "status", "Saved.")


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


def emulate(driver, width, scheme, height=900):
    """A viewport `width` CSS pixels wide (a phone's touch-and-mobile behaviour under 600) and the
    `prefers-color-scheme` the page should see."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})


def full_page_screenshot(driver, name):
    """The whole page, not only the viewport, as a PNG under SCREENSHOTS."""
    import base64
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
    (SCREENSHOTS / f"{name}.png").write_bytes(base64.b64decode(shot["data"]))
