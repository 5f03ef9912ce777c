from playwright.sync_api import Browser

from .conftest import Server


def test_home_page_loads(server: Server, browser: Browser) -> None:
    page = browser.new_page()
    page.goto(server.url + "/")
    assert page.title()
