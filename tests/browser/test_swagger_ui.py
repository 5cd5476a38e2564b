"""/swagger in a real browser: Swagger UI loads the document, takes the API key through
"Authorize", and "Try it out" on the backgammon submit operation stores a game (201).

Headless Chromium from the system's packages (`apt-get install chromium`; .ci/run installs it),
driven by playwright's Python package; playwright's own browser downloads are never used.
"""

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import support.stack

from ratings_local.stack import LocalStack

CHROMIUM = Path("/usr/bin/chromium")
API_KEY = "browser-test-key"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.xdist_group("local_stack"),
    pytest.mark.filterwarnings("ignore:No application metrics:UserWarning"),
]

if not CHROMIUM.exists() and os.environ.get("CI") != "true":
    pytest.skip(
        f"{CHROMIUM} is absent: `apt-get install -y chromium` to run the browser test "
        "(in CI it is installed and this test must run)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    with support.stack.running_stack(api_key=API_KEY) as local:
        yield local


def test_try_it_out_submits_a_game_through_swagger_ui(stack: LocalStack) -> None:
    from playwright.sync_api import expect, sync_playwright

    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: .ci/run installs it"
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(f"{stack.api_url}/swagger")
            expect(page.locator(".information-container .title")).to_contain_text("Elo ratings")

            page.locator(".auth-wrapper .authorize").click()
            # The game key's form: the moderation routes' credential has a form of its own.
            game_key = page.locator(".auth-container").first
            expect(game_key.locator("h4")).to_have_text(re.compile(r"^\s*apiKey\b"))
            game_key.locator("input").fill(API_KEY)
            game_key.locator(".auth-btn-wrapper .authorize").click()
            game_key.locator(".auth-btn-wrapper .btn-done").click()

            operation = page.locator("#operations-backgammon-submit_backgammon_game")
            operation.locator(".opblock-summary").first.click()
            operation.locator(".try-out__btn").click()
            operation.locator(".execute").click()

            status = operation.locator(".live-responses-table .response .response-col_status")
            expect(status.first).to_have_text(re.compile(r"^\s*201"), timeout=30_000)
            body = operation.locator(".live-responses-table .response-col_description pre")
            expect(body.first).to_contain_text('"ladder": "backgammon"')
        finally:
            browser.close()
