"""Is what a student had a hand in printed on the instructor's terminal as text, never as something the terminal obeys
(coursekit/printable.py), in make grade's lines and the service's log alike?"""
import pytest

from coursekit.grading.progress import Progress, StudentResult
from coursekit.printable import printable
from coursekit.service.log import ServiceLog

HOSTILE = {  # what a notebook's error or a folder's name may hold -> how it is shown
    "a title and a cleared screen": ("\x1b]0;owned\x07\x1b[2J", "\\x1b]0;owned\\x07\\x1b[2J"),
    "a C1 control": ("a\x9bb", "a\\x9bb"),
    "a right-to-left override": ("name\u202efdp.exe", "name\\u202efdp.exe"),
    "Chinese and accents": ("学生 é", "学生 é"),
}


@pytest.mark.parametrize("text, shown", HOSTILE.values(), ids=HOSTILE)
def test_is_every_control_character_shown_as_its_escape(text, shown):
    assert printable(text) == shown


def test_does_one_line_stay_one_line():
    assert printable("a\nb\tc", one_line=True) == "a\\x0ab\\x09c" and printable("a\nb") == "a\nb"


def test_do_make_grades_lines_and_summary_show_escapes_only():
    """A student id and a reason holding ESC: the progress line and the summary carry no raw ESC?"""
    progress = Progress(1, clock=lambda: 0.0, lang="en")
    line = progress.record(StudentResult("s\x1b[2J", False, "NotJSONError: \x1b]0;owned\x07", 1.0))
    said = line + progress.summary()
    assert "\x1b" not in said and "\x07" not in said and "s\\x1b[2J" in said and "\\x1b]0;owned\\x07" in said


def test_does_the_services_log_escape_them_in_its_file_and_on_stdout(tmp_path, capsys):
    log = ServiceLog(tmp_path / "service.log")
    log.write("NOT GRADED: \x1b[31mred\nsecond line", ("ch04_attention", "s\x07"))
    written, printed = (tmp_path / "service.log").read_text(), capsys.readouterr().out
    assert written == printed and "\x1b" not in written and written.count("\n") == 1 and "s\\x07" in written
