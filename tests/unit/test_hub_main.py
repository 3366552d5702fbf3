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


def test_does_a_wrong_lti_file_stop_make_hub_in_one_line(tmp_path, capsys):
    """LTI=<file> with a setting that is not a URL: one line naming the file and the setting (no argparse usage
    block, no ``__main__.py: error:``), status 1, before anything is built?"""
    from hub import __main__ as make_hub
    settings = tmp_path / "lms.toml"
    settings.write_text('issuer = "https://lms"\nclient_id = "c"\nauthorize_url = "nowhere"\n'
                        'jwks_url = "https://lms/jwks"\ntoken_url = "https://lms/token"\n')
    with pytest.raises(SystemExit) as stopped:
        make_hub.main(["--state", str(tmp_path / "state"), "--lti", str(settings)])
    said = str(stopped.value.code)
    assert said.startswith(f"make hub: LTI settings {settings}: authorize_url") and "\n" not in said, said
    assert capsys.readouterr().err == "" and not (tmp_path / "state").exists()
