"""Does ``make hub`` (autograde/hub/__main__.py) check what it can before it builds anything, and say it in one line?"""
import pytest

from hub import accounts, userenv


def test_does_make_hub_say_an_open_repository_in_one_line_before_building_anything(monkeypatch, capsys):
    """As root, a repository others may enter: make hub stops at once with one line naming it and the chmod, and
    builds no user environment first (it took a minute before saying so)?"""
    from hub import __main__ as make_hub
    monkeypatch.setattr(accounts, "is_root", lambda: True)
    monkeypatch.setattr(accounts, "reachable_by_others", lambda path: True)
    monkeypatch.setattr(userenv, "ensure", lambda *a, **k: pytest.fail("the environment was built first"))
    with pytest.raises(SystemExit) as stopped:
        make_hub.main(["--state", "/nonexistent/state"])
    said = str(stopped.value.code)
    assert said.startswith("make hub: ") and "\n" not in said and "chmod o-rwx" in said
