"""Is the marking page turned on for instructors only, and does the marking guide never reach students?"""
import json
import re

from coursekit import paths
from coursekit.language import WORDS
from coursekit.marking import _jupyter_server_extension_points, enable
from coursekit.marking.rubric import rubric_file
from coursekit.paths import ASSIGNMENT, COURSE, STUDENT_NOTEBOOK


def test_does_enable_write_the_server_extension_and_the_menu_keeping_other_menus(tmp_path):
    settings = tmp_path / "lab" / enable.MENU_SETTINGS
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"menus": [{"id": "mine", "items": []}], "other": 1}))
    enable.write(tmp_path / "config", tmp_path / "lab", "/user/attn-instructor/", course="/srv/course")
    config = json.loads((tmp_path / "config" / enable.CONFIG_FILE).read_text())
    assert config == {"ServerApp": {"jpserver_extensions": {"coursekit.marking": True}},
                      "CourseMarking": {"course": "/srv/course"}}
    menus = json.loads(settings.read_text())
    assert menus["other"] == 1 and [m["id"] for m in menus["menus"]] == ["mine", enable.MENU_ID]
    item = menus["menus"][1]["items"][0]
    assert item["command"] == "help:open" and item["args"]["url"] == "/user/attn-instructor/marking/"
    assert (menus["menus"][1]["label"], item["args"]["text"]) == (WORDS.say("zh", "marking.menu"),
                                                                   WORDS.say("zh", "marking.menu_item"))
    enable.write(tmp_path / "config", tmp_path / "lab")  # again: replaced, not doubled
    assert [m["id"] for m in json.loads(settings.read_text())["menus"]] == ["mine", enable.MENU_ID]


def test_is_the_menu_named_in_the_courses_language(tmp_path):
    """An English course's instructor reads the menu in English (the course's config says so)?"""
    (tmp_path / "nbgrader_config.py").write_text('c = get_config()\nc.CourseKit.language = "en"\n')
    enable.write(tmp_path / "config", tmp_path / "lab", "/", course=tmp_path)
    [menu] = json.loads((tmp_path / "lab" / enable.MENU_SETTINGS).read_text())["menus"]
    assert (menu["label"], menu["items"][0]["args"]["text"]) == (WORDS.say("en", "marking.menu"),
                                                                 WORDS.say("en", "marking.menu_item"))


def test_is_the_extension_found_the_standard_way():
    assert _jupyter_server_extension_points() == [{"module": "coursekit.marking"}]


def test_does_the_rubric_live_outside_what_nbgrader_releases():
    """source/ ships every file to students: the rubric is not under it, and a course copy takes it along?"""
    rubric = rubric_file(COURSE, ASSIGNMENT)
    assert rubric.is_file() and COURSE / "source" not in rubric.parents
    assert "rubrics" in paths.COURSE_PARTS


def test_does_the_student_notebook_carry_no_rubric_text():
    released = STUDENT_NOTEBOOK.read_text(encoding="utf-8")
    rubric = rubric_file(COURSE, ASSIGNMENT).read_text(encoding="utf-8")
    points = [line.split('"')[1] for line in rubric.splitlines() if line.startswith("text = ")]
    assert points and not any(p in released for p in points)
    assert "rubric" not in released and not re.search(r"\bshare\s*=", released)  # a rubric's key, not np.shares_memory


def test_does_a_course_copy_take_the_rubric(tmp_path):
    paths.copy_course(tmp_path / "copy")
    assert (tmp_path / "copy" / "rubrics" / f"{ASSIGNMENT}.toml").read_bytes() == rubric_file(COURSE, ASSIGNMENT).read_bytes()


def test_does_only_the_hub_instructor_get_the_marking_page(tmp_path):
    """The instructor's ~/.jupyter turns the marking page on for their course; a student's does not?"""
    from hub import accounts
    from hub import plan as hub_plan

    plan = hub_plan.HubPlan(state=str(tmp_path), unix_users=False, instructor="teacher", students=["s1"],
                            passwords={}, homes={}, exchange="/srv/exchange", python="python",
                            proxy="chp", port=1, hub_port=2, proxy_api_port=3, api_token="x")
    course = paths.copy_course(tmp_path / "course")
    accounts.write_user_settings(tmp_path / "teacher", plan, course)
    accounts.write_user_settings(tmp_path / "student", plan)
    config = json.loads((tmp_path / "teacher" / ".jupyter" / enable.CONFIG_FILE).read_text())
    assert config == enable.server_config(course)
    menu = (tmp_path / "teacher" / ".jupyter" / "lab" / "user-settings" / enable.MENU_SETTINGS).read_text()
    assert "/user/teacher/marking/" in menu
    assert not (tmp_path / "student" / ".jupyter" / "jupyter_server_config.d").exists()
