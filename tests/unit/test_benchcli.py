"""Does every benchmark say its defaults in --help and offer --smoke, through the one helper (benchmarks/benchcli.py)?

Each bench's smoke run: tests/integration/test_benchmarks.py.
"""
import ast
import pathlib
import sys

import pytest

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import benchcli  # noqa: E402

BENCHES = sorted(BENCHMARKS.glob("bench_*.py"))


def test_does_help_show_each_default_and_smoke_its_sizes(capsys):
    """--help names every option's default and the smoke's sizes; --smoke puts those sizes in place of the others?"""
    parser = benchcli.parser("A bench.\n\nMore.", {"n": 3, "workers": "1"})
    parser.add_argument("--n", type=int, default=300, help="students")
    parser.add_argument("--workers", default="1,2", help="workers")
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    shown = capsys.readouterr().out
    assert "(default: 300)" in shown and "(default: 1,2)" in shown and "--n 3 --workers 1" in shown
    assert (benchcli.parse(parser, ["--smoke"]).n, benchcli.parse(parser, ["--smoke"]).workers) == (3, "1")
    assert benchcli.parse(parser, ["--n", "7"]).n == 7


@pytest.mark.parametrize("path", BENCHES, ids=[path.stem for path in BENCHES])
def test_does_the_bench_parse_its_options_through_the_helper_each_with_its_help(path):
    """Its parser is benchcli's (so --smoke and the defaults in --help), and every option it adds has a help text,
    without which argparse would not show its default?"""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)]
    assert {"parser", "parse"} <= {call.func.attr for call in calls
                                   if isinstance(call.func.value, ast.Name) and call.func.value.id == "benchcli"}
    options = [call for call in calls if call.func.attr == "add_argument"]
    assert [ast.unparse(call) for call in options if not any(k.arg == "help" for k in call.keywords)] == []
    assert "argparse" not in {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                              for alias in node.names}
