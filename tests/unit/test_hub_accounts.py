"""Do the hub's settings hide nbgrader's instructor tools from students and keep them for the instructor, as
JupyterLab itself reads its page config? (autograde/hub/accounts.py; in Chromium: tests/integration/test_hub.py)"""
import pytest
from jupyterlab_server.config import get_static_page_config

from coursekit import paths


@pytest.mark.parametrize("user, shown", [("student", False), ("teacher", True)])
def test_does_only_the_instructor_see_nbgraders_create_assignment_and_formgrader(tmp_path, monkeypatch, user, shown):
    """A student's server (the system-wide settings only): nbgrader's Create Assignment tab, Formgrader and Course List
    disabled; the instructor's (their own folder first on the config path): enabled again; the Assignment List and
    Validate always?"""
    from hub import accounts
    from hub import plan as hub_plan

    plan = hub_plan.HubPlan(state=str(tmp_path / "state"), unix_users=False, instructor="teacher", students=["s1"],
                            passwords={}, homes={}, exchange="/srv/exchange", python="python",
                            proxy="chp", port=1, hub_port=2, proxy_api_port=3, api_token="x")
    accounts.write_system_settings(plan)
    accounts.write_user_settings(tmp_path / "teacher", plan, paths.copy_course(tmp_path / "course"))
    accounts.write_user_settings(tmp_path / "student", plan)
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", accounts.config_path(plan, user))  # as the hub starts their server
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path / user / ".jupyter"))
    disabled = get_static_page_config(level="all").get("disabledExtensions", {})
    assert {plugin: not disabled.get(plugin, False) for plugin in accounts.INSTRUCTOR_TOOLS} == dict.fromkeys(
        accounts.INSTRUCTOR_TOOLS, shown)
    assert not disabled.get("@jupyter/nbgrader:assignment-list") and not disabled.get(
        "@jupyter/nbgrader:validate-assignment")
