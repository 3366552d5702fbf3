"""Does Chromium open the class report's index.html from disk, cleanly, in Chinese?

Debian's /usr/bin/chromium through Playwright (tests/support/report_page.py); the screenshot lands
in ``artefacts/report/``.
"""

import pytest

from support.report_page import open_report
from support.synthetic_class import small_class_page


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    return small_class_page(tmp_path_factory.mktemp("class"))


def test_the_page_opens_in_chromium_without_console_errors(page_file, tmp_path):
    """Does Chromium open index.html from disk with no console error and show the Chinese headings?"""
    def check(page):
        assert page.locator("h2").first.inner_text() == "概况"
        assert page.locator("svg").count() == 3

    assert open_report(page_file, "synthetic_class.png", tmp_path, check) == []
