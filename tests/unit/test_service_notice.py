"""Is the "not graded" page (coursekit/service/notice.py) in the language of the edition the student submitted?"""
from attnkit.edition import CJK
from coursekit.assignments import assignment_of
from coursekit.paths import COURSE
from coursekit.service.notice import is_notice, notice_page
from coursekit.settings import course_config


def test_does_each_editions_student_read_their_own_language_only():
    """The Chinese assignment's page in Chinese, the English one's (ch04_attention_en, as the course config declares
    it) in English with no Chinese; both marked as not graded, the reason escaped?"""
    reason, config = 'NotJSONError: <b>"bad"</b>', course_config(COURSE)
    zh, en = (notice_page(name, "2026-12-01 10:00:01 UTC", reason, assignment_of(name, config).language)
              for name in ("ch04_attention", "ch04_attention_en"))
    assert is_notice(zh) and is_notice(en) and "&lt;b&gt;" in zh and "<b>&quot;bad" not in en
    assert "这次提交没有被自动评分" in zh and 'lang="zh-CN"' in zh
    assert "this submission was not graded automatically" in en and 'lang="en"' in en and not CJK.findall(en)
    assert "received your submission of <b>2026-12-01 10:00:01 UTC</b>" in en

