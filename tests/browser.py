"""Debian's headless Chromium for the browser tests (the book's pages, notebook 01 in JupyterLab): one set of flags,
one reason to skip where it is not installed."""
from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
#: the tests that open a page: skipped, saying why, where Chromium or its driver is missing
needs_chromium = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="needs Debian's chromium and "
                                    "chromium-driver (./test.sh installs them where it runs as root with apt-get)")
#: headless, and nothing that reaches out of the machine (updates, sync, QUIC)
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1280,2000")


def chromium() -> WebDriver:
    """A headless Chromium driven by chromedriver; the caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
