"""The pictures in a real browser: headless Chromium driven by Selenium.

Selenium drives the distribution's own chromium and chromedriver (no
download at test time; Selenium Manager is bypassed by naming the driver),
and unlike ``chromium --dump-dom`` it can ask the page what it rendered:
the SVG's laid-out size, an image's natural width.

Skipped with a message where no browser is installed; ``.ci/run`` installs
one and sets PBMSERV_REQUIRE_BROWSER=1, which turns the skip into a failure.
"""

from __future__ import annotations

import base64
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import Running
from tests.server.web.webproc import web_server

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = None
    try:
        from selenium import webdriver
    except ImportError:
        missing = "selenium is not installed (pip install -e .[test])"
    if missing is None and not (CHROMIUM and DRIVER):
        missing = "no chromium/chromedriver on PATH (apt-get install chromium chromium-driver)"
    if missing:
        if os.environ.get("PBMSERV_REQUIRE_BROWSER"):
            pytest.fail(f"PBMSERV_REQUIRE_BROWSER is set but {missing}")
        pytest.skip(f"browser tests skipped: {missing}")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM  # type: ignore[assignment]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


def wait_for(driver: Any, script: str, timeout: float = 30) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(lambda d: d.execute_script(script))


def test_board_page_shows_the_svg_and_browses_positions(players: Running, db_url: str, browser: Any) -> None:
    players.mail("alice@example.org", "weavedungeon challenge alice bob")
    players.mail("alice@example.org", "weavedungeon move 101 alice apple1 Da2-a3")
    players.mail("bob@example.org", "weavedungeon move 101 bob banana2 Da8-a7")
    with web_server(db_url) as base:
        browser.get(base + "/weavedungeon/101")
        size = wait_for(browser, "const s = document.querySelector('#picture svg');"
                                 "if (!s) return null; const r = s.getBoundingClientRect(); return [r.width, r.height];")
        assert size[0] > 300 and size[1] > 300
        pieces = browser.execute_script("return document.querySelectorAll('#picture svg .piece').length")
        assert pieces == 36
        status = "return document.querySelector('#picture svg .status').textContent"
        assert browser.execute_script(status) == "White (alice) to move"
        # the position browser: #1 is the board after move 1, drawn from /weavedungeon/101/1.svg
        browser.execute_script("location.hash = '#1'")
        wait_for(browser, status + " === 'Black (bob) to move'")
        assert browser.execute_script("return document.getElementById('at').textContent") == "after move 1"
        assert browser.execute_script("return document.querySelector('.moves .here').dataset.ply") == "1"
        browser.find_element("id", "prev").click()
        wait_for(browser, "return document.querySelector('#picture svg .last') === null")
        assert browser.current_url.endswith("#0")


def test_html_board_mail_shows_its_inline_picture(players: Running, browser: Any, tmp_path: Path) -> None:
    new = players.mail("alice@example.org", "tridchess challenge alice bob")
    msg = new[0].message
    page = next(p for p in msg.walk() if p.get_content_type() == "text/html").get_content()
    png = next(p for p in msg.walk() if p.get_content_type() == "image/png")
    cid = png["Content-ID"].strip("<>")
    # what a mail client does with cid: -- here with a data: URL the browser can load from a file
    data = "data:image/png;base64," + base64.b64encode(png.get_content()).decode("ascii")
    assert f"cid:{cid}" in page
    (tmp_path / "mail.html").write_text(page.replace(f"cid:{cid}", data), encoding="utf-8")
    browser.get((tmp_path / "mail.html").as_uri())
    natural = wait_for(browser, "const i = document.querySelector('img');"
                                "return i && i.complete && i.naturalWidth ? [i.naturalWidth, i.width, i.alt] : null;")
    assert natural[0] >= 320 and natural[1] > 0
    assert natural[2].startswith("Tri-Dimensional Chess board")
    assert browser.execute_script("return document.querySelector('pre').textContent").count("Players:") == 1


def test_the_move_list_is_numbered_once(players: Running, db_url: str, browser: Any) -> None:
    """Issue 26 item 20: the list read "1. 1. alice: G5" (the <ol>'s number and one in the text)."""
    players.mail("alice@example.org", "warpandweft challenge alice bob")
    players.mail("alice@example.org", "warpandweft move 101 alice apple1 C1")
    players.mail("bob@example.org", "warpandweft move 101 bob banana2 A1")
    with web_server(db_url) as base:
        browser.get(base + "/warpandweft/101")
        wait_for(browser, "return document.querySelectorAll('.moves li').length === 3")
        # What a person sees, markers included: innerText does not give the <ol>'s numbers, so ask the layout.
        shown = browser.execute_script(
            "const ol = document.querySelector('.moves ol');"
            "return [...ol.querySelectorAll('li')].map((li, i) => "
            "(getComputedStyle(li).listStyleType !== 'none' ? (ol.start + i) + '. ' : '') + li.innerText)")
        assert shown == ["0. start", "1. alice: C1", "2. bob: A1"], shown
