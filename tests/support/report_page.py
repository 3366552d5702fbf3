"""Opening the class report's index.html from disk in Debian's Chromium (Playwright), as test_browser.py does.

Used by test_report_html.py (synthetic class) and test_report_course.py (a class graded by the
real nbgrader). Screenshots land in ``artefacts/report/`` (ignored by git).
"""
from support import lab_page
from support.lab_server import REPO

ARTEFACTS = REPO / "artefacts" / "report"


def open_report(path, screenshot: str, home, check=None) -> list:
    """Open ``path`` (file://), run ``check(page)``, save a full-page screenshot; return console errors."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    errors = []
    with lab_page.chromium_browser(home, "the report's browser test") as browser:
        page = browser.new_page(viewport=lab_page.VIEWPORT)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        if check is not None:
            check(page)
        page.screenshot(path=ARTEFACTS / screenshot, full_page=True)
    return errors
