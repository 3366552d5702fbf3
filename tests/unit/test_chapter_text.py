"""Does the chapter's prose quote what the code really prints?"""
import contextlib
import io
import re

import nbformat

from attnkit import lab, verify
from coursekit.paths import MASTER

TABLE_CELL = "s410-troubleshooting"  # §4.10 常见错误与排查顺序


def cell(cell_id: str) -> str:
    nb = nbformat.read(MASTER, as_version=4)
    return next(c.source for c in nb.cells if c.id == cell_id)


def verify_lines(*functions) -> str:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        verify.run_all(*functions)
    return printed.getvalue()


def table_quotes(table: str) -> list:
    """The `code` quotes in the last column ("在 verify 里的样子") of a markdown table."""
    rows = [line for line in table.splitlines() if line.startswith("|") and "TEST" in line]
    return [quote for row in rows for quote in re.findall(r"`([^`]+)`", row.rstrip(" |").rsplit("|", 1)[1])]


def missing_quotes(table: str, printed: str) -> list:
    """Quotes that ``printed`` does not contain (a trailing … stands for a number)."""
    return [q for q in table_quotes(table) if q.rstrip("…").rstrip() not in printed]


def test_troubleshooting_table_quotes_lines_verify_prints():
    """Is every line §4.10's table quotes printed by verify's baseline run?"""
    table = cell(TABLE_CELL)
    assert len(table_quotes(table)) >= 10
    assert missing_quotes(table, verify_lines(*lab.STUBS)) == []


def test_the_table_no_longer_cites_check_numbers():
    """Does the table avoid '第 11、12、14 项'-style numbers that verify does not print?"""
    assert not re.search(r"第 \d+(、\d+)* 项", cell(TABLE_CELL))
    assert not re.search(r"第 \d+", verify_lines(*lab.STUBS))  # verify indeed prints no numbers


def test_a_quote_verify_does_not_print_is_caught():
    """Control: is a made-up quote in the last column reported, and one from another column ignored?"""
    table = "| 现象 | `out[0][0] = 0.25` | TEST 1 的 `out[0][0] = 0.5`、`第 3 项` FAIL |"
    assert missing_quotes(table, verify_lines(*lab.STUBS)) == ["第 3 项"]
