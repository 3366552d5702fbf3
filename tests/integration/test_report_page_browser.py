"""Does Chromium open the class report's index.html from disk, cleanly, in Chinese, with no WCAG 2.1 A/AA violation?

Debian's /usr/bin/chromium through Playwright (tests/support/report_page.py); the screenshot lands
in ``artefacts/report/``. The audit's own sorting of whose a violation is (support/axe_audit.py) is checked here too,
on a page made to break one rule twice, in a tab of the same browser.
"""

import pytest

from support.axe_audit import UPSTREAM, assert_accessible, audit
from support.report_page import open_report
from support.synthetic_class import small_class_page


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    return small_class_page(tmp_path_factory.mktemp("class"))


def test_the_page_opens_in_chromium_without_console_errors(page_file, tmp_path):
    """Does Chromium open index.html from disk with no console error, show the Chinese headings, pass the audit, and
    does the audit catch what it should?"""
    def check(page):
        assert page.locator("h2").first.inner_text() == "概况"
        assert page.locator("svg").count() == 3
        assert_accessible(page, "report")
        assert_the_audit_sorts_and_fails(page)

    assert open_report(page_file, "synthetic_class.png", tmp_path, check) == []


# Two images without a text alternative, one in "our" part of the page, one in another's.
BROKEN = """<!DOCTYPE html><html lang="en"><head><title>broken on purpose</title></head><body><main><p>Read this
now.</p><img src="data:,"></main><nav><img src="data:,"></nav></body></html>"""


def assert_the_audit_sorts_and_fails(page) -> None:
    """The audit's sorting, on a page made to break a rule twice (a tab of the report's browser, no browser of its
    own): a violation inside ``ours`` is ours, one outside upstream's; each makes the check fail (ours always,
    upstream's unless its rule is listed with its issue)."""
    tab = page.context.browser.new_page()
    try:
        tab.set_content(BROKEN)
        found = audit(tab, "audit-self-check", ours="main")
        assert [(v.rule, v.count) for v in found.ours] == [("image-alt", 1)]
        assert [(v.rule, v.count) for v in found.upstream] == [("image-alt", 1)]
        assert "image-alt" not in UPSTREAM
        with pytest.raises(AssertionError) as failed:
            assert_accessible(tab, "audit-self-check", ours="main")
    finally:
        tab.close()
    said = str(failed.value)
    assert "ours: image-alt" in said and "upstream, not in axe_audit.UPSTREAM" in said, said
