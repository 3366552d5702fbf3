"""Opening the class report's index.html from disk in Debian's Chromium (Playwright), as test_browser.py does.

Used by test_report_html.py (synthetic class) and test_report_course.py (a class graded by the
real nbgrader). Screenshots land in ``artefacts/report/`` (ignored by git).
"""
import os

import pytest

import lab_page
from lab_server import REPO

ARTEFACTS = REPO / "artefacts" / "report"


def require_chromium():
    """The Chromium path; skip (fail under CI=true) with how to enable it when it is missing."""
    if not lab_page.CHROMIUM.exists():
        message = (f"{lab_page.CHROMIUM} missing: enable the report's browser test with "
                   "`sudo apt-get install chromium` (or run `make test` as root)")
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return lab_page.CHROMIUM


def open_report(path, screenshot: str, home, check=None) -> list:
    """Open ``path`` (file://), run ``check(page)``, save a full-page screenshot; return console errors."""
    from playwright.sync_api import sync_playwright

    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, XDG_CONFIG_HOME=str(home / "config"), XDG_CACHE_HOME=str(home / "cache"))
    errors = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(require_chromium()),
                                             args=lab_page.CHROMIUM_ARGS, env=env)
        try:
            page = browser.new_page(viewport=lab_page.VIEWPORT)
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(path.as_uri())
            if check is not None:
                check(page)
            page.screenshot(path=ARTEFACTS / screenshot, full_page=True)
        finally:
            browser.close()
    return errors
