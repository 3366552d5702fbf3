"""Does the class report count the regrade requests per question, by the names the course reads, in its language?"""
from coursekit.report.labels import Labels
from coursekit.report.regrade_counts import section, summary_line

COUNTS = {"q_think1_scale": {"filed": 1, "open": 1, "changed": 0, "kept": 0},
          "test1_scores": {"filed": 3, "open": 1, "changed": 1, "kept": 1}}
LABELS = Labels("zh", {"q_think1_scale": "思考题 1", "test1_scores": "TEST 1 · <任务 2>"})


def test_is_each_question_a_row_most_asked_first_its_name_escaped():
    heading, html = section(COUNTS, LABELS, "zh")
    assert heading == "复查申请" and html.index("TEST 1") < html.index("思考题 1")
    assert "&lt;任务 2&gt;" in html and "<任务 2>" not in html
    assert "<td class=\"num\">3</td><td class=\"num\">1</td><td class=\"num\">1</td><td class=\"num\">1</td>" in html
    assert section({}, LABELS, "en") == ("Regrade requests", "<p>No student has asked for a regrade yet.</p>")


def test_does_make_report_say_the_requests_in_one_line_and_nothing_without_any():
    assert summary_line(COUNTS, LABELS, "zh") == "复查申请：4 份，2 份待处理（TEST 1 · <任务 2> ×3、思考题 1 ×1）"
    assert summary_line(COUNTS, LABELS, "en").startswith("regrade requests: 4, 2 open (")
    assert summary_line({}, LABELS, "zh") is None
