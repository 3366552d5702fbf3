"""Does Chromium open the class report's index.html from disk, cleanly, in Chinese, with no WCAG 2.1 A/AA violation?

Debian's /usr/bin/chromium through Playwright (tests/support/report_page.py); the screenshot lands
in ``artefacts/report/``. The audit's own sorting of whose a violation is (support/axe_audit.py) is checked here too,
on a page made to break two rules.
"""

import pytest

from support.axe_audit import UPSTREAM, assert_accessible, audit
from support.lab_page import chromium_browser
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
        assert_accessible(page, "report")

    assert open_report(page_file, "synthetic_class.png", tmp_path, check) == []


# Two images without a text alternative, one in "our" part of the page, one in another's, and a link in our text
# told apart by colour alone.
BROKEN = """<!DOCTYPE html><html lang="en"><body><main><p>Read <a href="#x" style="color:#333;text-decoration:none">this
</a> now, said <span style="color:#000">it</span>.</p><img src="data:,"></main><nav><img src="data:,"></nav></body></html>"""


def test_does_the_audit_fail_on_ours_and_on_an_unlisted_upstream_rule(tmp_path):
    """The audit's sorting: a violation inside ``ours`` is ours, one outside upstream's; each makes the check fail
    (ours always, upstream's unless its rule is listed with its issue)?"""
    with chromium_browser(tmp_path) as browser:
        page = browser.new_page()
        page.set_content(BROKEN)
        found = audit(page, "audit-self-check", ours="main")
        assert {(v.rule, v.count) for v in found.ours} >= {("image-alt", 1)}
        assert [(v.rule, v.count) for v in found.upstream] == [("image-alt", 1)]
        assert "image-alt" not in UPSTREAM
        with pytest.raises(AssertionError) as failed:
            assert_accessible(page, "audit-self-check", ours="main")
    said = str(failed.value)
    assert "ours: image-alt" in said and "upstream, not in axe_audit.UPSTREAM" in said, said
