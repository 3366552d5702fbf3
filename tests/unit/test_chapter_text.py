"""Does §4.10's troubleshooting table say what verify really prints, and does the diagnosis point at its rows?

The table is written by hand in the master, once per edition (the English in the cell's metadata); these tests
hold both to the facts. Each row is found by its symptom (the first column), which ``attnkit.troubleshooting.symptom``
quotes per language; ``TROUBLESHOOTING`` in tests/support/mistakes.py names the mistakes each row describes. A
row's second column must quote exactly the FAIL lines those mistakes make verify print in that edition's
language, each under the TEST that prints it.
"""
import contextlib
import functools
import io
import re
from dataclasses import dataclass

import numpy as np
import pytest

from attnkit import lab, verify
from attnkit.bugs import ROLE
from attnkit.language import LANGUAGES, WORDS
from attnkit.troubleshooting import ROWS, SYMPTOMS, symptom
from attnkit.diagnose import diagnose
from support.editions import CJK, EDITIONS, POINTER, STAGE_POINTER, cell_source, master
from support.mistakes import BY_NAME, DIAGNOSED, DIAGNOSED_BY_NAME, MISTAKES, TROUBLESHOOTING, functions, release

TABLE_CELL = "s410-troubleshooting"  # §4.10 常见错误与排查顺序 / Common mistakes
RELEASE = release()
# A check number in prose, which verify does not print: "第 11、12、14 项", "checks 11, 12 and 14".
CHECK_NUMBERS = {"zh": re.compile(r"第 \d+(、\d+)* 项"), "en": re.compile(r"\b(checks?|assertions?|items?) \d+")}

TABLE_ROW = {lang: {key: symptom(key, lang) for key in SYMPTOMS} for lang in LANGUAGES}  # §4.10's first column


@dataclass(frozen=True)
class Row:
    symptom: str   # first column, code marks dropped: what TABLE_ROW quotes
    fails: dict    # {verify message: the TEST it is quoted under}
    notes: tuple   # other quoted lines (row sums), "…" standing for a number
    check: str     # the 先检查 / Check first column


@functools.cache
def messages(lang: str) -> dict:
    """Every assertion verify can print in ``lang``, with the TEST that prints it (the reference passes them all)."""
    return {c.message: c.test for c in verify.run_all(*lab.REFERENCE, file=io.StringIO(), lang=lang).checks}


def cell(cell_id: str, lang: str) -> str:
    return cell_source(master(lang), cell_id)


def quotes(text: str) -> list:
    """The `code` quotes of ``text``; ``[j]`` stands for the three lines j = 0, 1, 2."""
    found = re.findall(r"`([^`]+)`", text)
    return [q.replace("[j]", f"[{j}]") for q in found for j in ((0, 1, 2) if "[j]" in q else (None,))]


def parse_row(line: str, lang: str = "zh") -> Row:
    symptom, fails, _cause, check = [part.strip() for part in line.strip().strip("|").split("|")]
    quoted, test = {}, None
    for piece in re.split(r"(TEST \d)", fails):  # a quote belongs to the last "TEST n" before it
        if re.fullmatch(r"TEST \d", piece):
            test = int(piece[-1])
        else:
            quoted.update({q: test for q in quotes(piece)})
    known = messages(lang)
    return Row(symptom.replace("`", ""), {q: t for q, t in quoted.items() if q in known},
               tuple(q for q in quoted if q not in known), check)


def table_rows(text: str, lang: str) -> list:
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [parse_row(line, lang) for line in lines[2:]]  # below the header and its |---| line


@functools.cache
def rows(lang: str) -> dict:
    return {row.symptom: row for row in table_rows(cell(TABLE_CELL, lang), lang)}


def mistake(name: str):
    return BY_NAME.get(name) or DIAGNOSED_BY_NAME[name]


@functools.cache
def transcript(name: str, lang: str) -> tuple:
    """(the FAIL messages verify prints for this mistake in ``lang``, with their TEST; everything it printed)."""
    printed = io.StringIO()
    # a student print() is not verify's; the overflow of a softmax without its max shift is the point
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
        report = verify.run_all(*functions(mistake(name), RELEASE), file=printed, lang=lang)
    return {c.message: c.test for c in report.checks if not c.passed}, printed.getvalue()


def differences(row: Row, names, lang: str = "zh") -> list:
    """What the row says that a mistake's transcript does not bear out (empty: the row is exact)."""
    found, printed_by_any = [], ""
    for name in names:
        fails, printed = transcript(name, lang)
        printed_by_any += printed
        if fails != row.fails:
            found.append(f"{name} fails {sorted(fails.items())}, the row lists {sorted(row.fails.items())}")
    found += [f"no mistake prints {note!r}" for note in row.notes if note.rstrip("… ") not in printed_by_any]
    return found


# ---------- the table against verify ----------

@pytest.mark.parametrize("lang", EDITIONS)
def test_are_the_tables_rows_exactly_the_symptoms_bugs_knows(lang):
    """Does every row of §4.10 have a key in TABLE_ROW, and every TABLE_ROW entry a row (the same words)?"""
    assert sorted(rows(lang)) == sorted(TABLE_ROW[lang].values())
    assert sorted(TROUBLESHOOTING) == sorted(TABLE_ROW[lang])
    assert len(rows(lang)) >= 10


@pytest.mark.parametrize("lang", EDITIONS)
@pytest.mark.parametrize("key", sorted(TROUBLESHOOTING))
def test_does_each_row_list_exactly_the_fail_lines_its_mistakes_print(key, lang):
    """For every mistake the row stands for: FAIL lines = the row's quotes, each under its TEST; notes printed?"""
    row = rows(lang)[TABLE_ROW[lang][key]]
    assert TROUBLESHOOTING[key], "every row needs a mistake that shows it"
    assert differences(row, TROUBLESHOOTING[key], lang) == []


@pytest.mark.parametrize("lang, fewer, wrong_test, invented", [
    ("zh", "| x | TEST 1 的 `out[0][0] = 0.5` | y | z |", "| x | TEST 2 的 `out[0][0] = 0.5`、`out[1][1] = 0.5` | y | z |",
     "| x | TEST 1 的 `out[0][0] = 0.5`、`out[1][1] = 0.5`（`row 0 sum = 7.0`） | y | z |"),
    ("en", "| x | TEST 1: `out[0][0] = 0.5` | y | z |", "| x | TEST 2: `out[0][0] = 0.5`, `out[1][1] = 0.5` | y | z |",
     "| x | TEST 1: `out[0][0] = 0.5`, `out[1][1] = 0.5` (`row 0 sum = 7.0`) | y | z |"),
])
def test_does_a_wrong_row_get_caught(lang, fewer, wrong_test, invented):
    """Control: a row that forgets a FAIL line, puts one under the wrong TEST or invents a note is reported?"""
    assert len(differences(parse_row(fewer, lang), ["bug_no_scale"], lang)) == 1
    assert len(differences(parse_row(wrong_test, lang), ["bug_no_scale"], lang)) == 1
    assert differences(parse_row(invented, lang), ["bug_no_scale"], lang) == ["no mistake prints 'row 0 sum = 7.0'"]


@pytest.mark.parametrize("lang", EDITIONS)
def test_the_table_no_longer_cites_check_numbers(lang):
    """Does the table avoid '第 11、12、14 项'-style numbers that verify does not print?"""
    assert not CHECK_NUMBERS[lang].search(cell(TABLE_CELL, lang))
    assert not re.search(r"第 \d+|\b(check|assertion) \d+", transcript("stubs", lang)[1])  # verify prints no numbers


def test_does_the_row_of_verify_blind_mistakes_get_a_finding_from_the_diagnosis():
    """'22 项全 PASS，诊断格子却有发现': does each of its mistakes really get a finding?"""
    for name in TROUBLESHOOTING["verify_blind"]:
        assert diagnose(*functions(mistake(name), RELEASE)), name


# ---------- the diagnosis against the table ----------

@functools.cache
def matching_rows(name: str, lang: str = "zh") -> list:
    """The rows of §4.10 whose FAIL lines are exactly what verify prints for this mistake (usually one or none),
    by key: the same in both editions (test_is_attnkits_table_the_chapters), so read in one."""
    fails, printed = transcript(name, lang)
    same = [key for key, row in keyed_rows(lang).items() if row.fails == fails]
    if len(same) > 1:  # "all zeros" and "neither 1 nor 0" FAIL the same lines: the printed row sums tell them apart
        zero = "row 0 sum = 0.000000" in printed
        same = [k for k in same if any(n.startswith("row 0 sum = 0.000000") for n in keyed_rows(lang)[k].notes) == zero]
    return same


@functools.cache
def keyed_rows(lang: str) -> dict:
    return {key: rows(lang)[symptom] for key, symptom in TABLE_ROW[lang].items()}


@functools.cache
def findings_of(name: str) -> list:
    return diagnose(*functions(mistake(name), RELEASE))


def named_rows(name: str, lang: str) -> set:
    """The rows the first finding of the diagnosis names, by key."""
    findings = findings_of(name)
    by_symptom = {symptom: key for key, symptom in TABLE_ROW[lang].items()}
    return {by_symptom.get(p, p) for f in findings[:1] for p in POINTER[lang].findall(f.text(lang))}


@pytest.mark.parametrize("lang", EDITIONS)
@pytest.mark.parametrize("entry", [*MISTAKES, *DIAGNOSED], ids=lambda e: e.name)
def test_does_every_finding_whose_fail_lines_match_a_row_name_exactly_that_row(entry, lang):
    """Over both mistake tables: when verify's FAIL lines are a row's, the first finding names that row and no
    other; when they are no row's, any row it names lists only FAIL lines the student does see? (A right answer
    has no finding: nothing to name.)"""
    if not findings_of(entry.name):
        assert not transcript(entry.name, "zh")[0]
        return
    matched, named = matching_rows(entry.name), named_rows(entry.name, lang)
    assert len(matched) <= 1, matched
    if matched:
        assert named == set(matched), (matched, named)
    else:
        seen = transcript(entry.name, "zh")[0]
        assert all(keyed_rows("zh")[k].fails.items() <= seen.items() for k in named), (named, sorted(seen))


def test_does_every_row_have_a_mistake_that_the_diagnosis_sends_there():
    """Each row of the table is named for at least one mistake whose FAIL lines are that row's?"""
    sent = set()
    for entry in (*MISTAKES, *DIAGNOSED):
        matched = matching_rows(entry.name, "zh")
        if matched and named_rows(entry.name, "zh") == set(matched):
            sent.update(matched)
    assert sent == set(TABLE_ROW["zh"])


@pytest.mark.parametrize("lang", EDITIONS)
def test_is_attnkits_table_the_chapters(lang):
    """attnkit.troubleshooting.ROWS (what the diagnosis matches verify against): each row's check numbers are, in
    verify's words, exactly the FAIL lines the chapter's row quotes?"""
    words = {c.number: c.message for c in verify.run_all(*lab.REFERENCE, file=io.StringIO(), lang=lang).checks}
    for row in ROWS:
        assert {words[n] for n in row.fails} == set(keyed_rows(lang)[row.key].fails), row.key


def test_would_a_finding_that_names_another_row_be_caught():
    """Control: the fixed-size mask's FAIL lines are the pipeline row's; naming the mask row instead is reported."""
    assert matching_rows("unnamed_mask_fixed_size", "zh") == ["pipeline"]
    seen = transcript("unnamed_mask_fixed_size", "zh")[0]
    assert not keyed_rows("zh")["mask"].fails.items() <= seen.items()


@pytest.mark.parametrize("lang", EDITIONS)
def test_does_every_pointer_the_diagnosis_prints_name_a_row_of_the_table(lang):
    """Over both mistake tables: each row pointer is a symptom of §4.10, each 先检查 pointer names a row's function?"""
    named, stages = set(), set()
    for entry in (*MISTAKES, *DIAGNOSED):
        for finding in findings_of(entry.name):
            named.update(POINTER[lang].findall(finding.text(lang)))
            stages.update(STAGE_POINTER[lang].findall(finding.text(lang)))
    table = rows(lang)
    assert named and named <= set(table), named - set(table)
    assert stages and all(any(role in row.check for row in table.values()) for role in stages)
    assert len(named) >= 6 and stages <= set(ROLE.values())


# ---------- the questions are graded, and say so ----------

OPTIONAL = {"zh": "选做", "en": "optional"}


def points_mark(points: float, lang: str) -> str:
    return f"（{points:g} 分）" if lang == "zh" else f"({points:g} point{'' if points == 1 else 's'})"


def question_headings(nb) -> dict:
    """{grade_id: (the heading above a graded written answer, as written, its points)}."""
    found, heading = {}, ""
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown" and meta.get("grade"):
            found[meta["grade_id"]] = (heading, meta["points"])
        elif cell.cell_type == "markdown":
            heading = next((line for line in reversed(cell.source.splitlines()) if line.startswith("### ")), heading)
    return found


def graded_heading_problems(nb, lang: str) -> list:
    return [(q, heading) for q, (heading, points) in question_headings(nb).items()
            if not heading.endswith(points_mark(points, lang)) or OPTIONAL[lang] in heading.lower()]


@pytest.mark.parametrize("lang", EDITIONS)
def test_does_every_graded_questions_heading_say_it_is_graded(lang):
    """Each of the 8 written questions' headings ends with its points and never calls it optional, in the master
    and in the release students get?"""
    for nb in (master(lang), RELEASE if lang == "zh" else release_of("en")):
        assert len(question_headings(nb)) == 8 and graded_heading_problems(nb, lang) == []


def test_would_an_optional_or_pointless_heading_be_caught():
    """Control: 「（选做）」 back in a heading, or its points dropped, is reported?"""
    nb = master("zh")
    cell = next(c for c in nb.cells if c.get("id") == "q-lab3-prompt")
    cell.source = cell.source.replace("### 实验题 3：", "### 实验题 3（选做）：")
    other = next(c for c in nb.cells if c.get("id") == "q-think4-prompt")
    other.source = other.source.replace("（1 分）", "")
    assert [q for q, _ in graded_heading_problems(nb, "zh")] == ["q_lab3_matmul_speed", "q_think4_split"]


def release_of(lang: str):
    from support.editions import release
    return release(lang)


# ---------- sentences that were wrong stay out ----------

# (the cell it stood in, the Chinese, the English, why it was wrong): none may come back anywhere in the edition.
RETRACTED = [
    ("test4-intro", "改写了后一步还要读的数组", "changes an array the next step still reads",
     "TEST 4 hands no step an array that a later step reads, but the scores mask changes by contract"),
    ("s410-troubleshooting", "改写了后一步还要读的数组", "changes an array the next step still reads", "as above"),
    ("s47-mask-order", "数值上只差浮点舍入", "up to floating-point rounding",
     "a future score about 104 above the allowed ones makes renormalising give NaN in float32"),
    ("q-lab1", "最大的两个分数之差", "the gap between its two largest scores", "a third close score decides it too"),
    ("s48-neg-inf", "取当前 dtype 能表示的最小值", "take the smallest number the current dtype can represent",
     "added to a score, float16's minimum overflows to -inf: it must replace the score"),
    ("s42-goals", "本节末尾就说", "comes at the end of this section", "head_dim is defined at the end of 4.3, not 4.2"),
    ("s42-goals", "「重新验证」单元格", "the \"verify everything\" cell", "the cell is called 任务 5：完整验证 / Task 5"),
    ("s42-goals", "", "the same 22 assertions, the same output", "the English edition prints English lines"),
    ("s41-motivation", "永远是「各算各的」", "Whatever we do to this matrix row by row", "a mean over positions mixes rows"),
    ("demo-qkv", "读出的是它们内容的平均", "the value read out is the mean of theirs", "it is [3.04 3.04], near the mean"),
    # the third review (#58)
    ("s47-mask-order", "不用为注定要丢掉的位置去算", "no `exp` computed for positions that will be thrown away",
     "an additive mask exponentiates every cell: only fused kernels that skip masked blocks save exp"),
    ("q-think2", "不用为注定丢掉的位置多算", "with no `exp` computed for positions that are thrown away",
     "an additive mask exponentiates every cell: only fused kernels that skip masked blocks save exp"),
    ("s47-mask-order", "数值上却有例外", "In floating point there is an exception",
     "NaN is not the only failure: from a lead of about 87 the renormalised weights are silently wrong"),
    ("s48-neg-inf", "分数稍负的格子一加掩码照样是", "any slightly negative score becomes `-inf`",
     "only scores of -16 or lower overflow; -65504 + (-15) is -65504"),
    ("float32-spacing-intro", "再加上一个负分数也会溢出成", "plus a negative score overflows to `-inf` too",
     "only scores of -16 or lower overflow"),
    ("q-think2", "被约掉，结果和先加掩码完全相同", "cancels out, and the result is exactly the same as masking first",
     "the same only in exact arithmetic"),
    ("glossary", "`K.T`、`reshape`、`transpose`", "`K.T`, `reshape`, `transpose`",
     "the heads' merge (transpose, then reshape) copies: np.shares_memory is False"),
    ("intro", "任务 5 重新验证", "", "the heading is 任务 5：完整验证"),
    ("s44-qkv", "", "calls the key a \"label\"", "the English edition never calls the key a label"),
    ("s42-goals", "所以你看到的 `Q`、`K` 都是 `[seq_len, head_dim]`", "always have the shape `[seq_len, head_dim]`",
     "Q is [seq_q, head_dim] and K [seq_k, head_dim]: 4.5, 4.9, the hidden checks, cross-attention"),
    ("s42-goals", "维向量平均分给", "vector evenly among", "the projected columns are split; every head sees all of x"),
    ("test4-intro", "打分和掩码到 TEST 4 才第一次遇到 4×4", "scores and mask meet a 4×4 input only in TEST 4",
     "scores hard-coded to 2×2 pass all 22 lines; only a hard-coded mask shows in TEST 4"),
    ("s410-troubleshooting", "打分和掩码到 TEST 4 才第一次遇到 4×4", "scores and mask meet a 4×4 input only in TEST 4",
     "as above"),
    ("all-heads-intro", "第 4 步写成 `merge_heads`", "step 4 `merge_heads`", "step 4 also holds weights @ V and @ W_o"),
    ("cost-outro", "在这台机器上", "On this machine", "the reader's machine is not the one the chapter was tested on"),
    ("all-heads-outro", "在这台机器上", "on this machine", "as above"),
    ("cost-outro", "内存的峰值是 4 张", "The peak memory is 4", "4 T×T matrices is attnkit.attention, not attention"),
    ("test1", "", "unsymmetric", "the chapter says asymmetric"),
    ("intro", "每个任务后面有一个评分单元格", "Each task is followed by a graded cell", "tasks 1 and 5 have none"),
    ("s41-motivation", "第 6 个", "token 6", "the rows and the demo count positions from 0 to 5"),
    ("s41-motivation", "第 4 个位置", "position 6", "as above"),
    ("s46-scale", "", "optional little factor", "a calque"),
    ("s48-neg-inf", "这种工程上的稳妥", "engineering caution", "a calque: say what it prevents"),
    ("s412-summary", "", "dividing line", "a calque"),
    ("multihead-intro", "", "the little cat", "a calque of 小猫"),
    ("demo-all-heads", "", "× faster", "\"1.0× faster\" for equal speeds: the heads line says speed-up"),
]


@functools.cache
def edition_text(lang: str) -> str:
    return "\n".join(c.source for c in master(lang).cells)


@functools.cache
def shown_text(lang: str) -> str:
    """Everything the edition's reader meets: its cells, what the graded cells print before and after submitting (the
    notes on the hidden checks, each hidden check's and probe's description) and the demo tables' rows."""
    from attnkit import gradecell, probes, timing
    from grader import checks
    stage = dict(zip(lab.STAGES, lab.REFERENCE))
    printed = [gradecell.render(test.number, tuple(stage[s] for s in test.stages), lang)[0]
               for test in gradecell.TEST_CELLS]
    printed += [check.text(lang) for cells in checks.HIDDEN.values() for check in cells]
    printed += [WORDS.say(lang, probe.purpose) for stage_probes in probes.PROBES.values() for probe in stage_probes]
    printed += [timing.heads_line(timing.HeadsTiming(1, 1e-4, 1e-4, 0.0), lang)]
    return "\n".join([edition_text(lang), *printed])


@pytest.mark.parametrize("cell_id, zh, en, why", RETRACTED, ids=[f"{r[0]}-{r[3][:20]}" for r in RETRACTED])
def test_does_a_retracted_sentence_stay_out(cell_id, zh, en, why):
    """The wrong sentence is in neither edition, its cell included (that cell is still there), nor in what the
    graded cells and the demo tables print?"""
    assert cell(cell_id, "zh") and cell(cell_id, "en")
    for lang, words in (("zh", zh), ("en", en)):
        assert not words or words not in shown_text(lang), why


def test_would_a_retracted_word_in_what_a_cell_prints_be_caught():
    """Control: the printed texts are searched too (the hidden checks' descriptions are among them)?"""
    from grader import checks
    assert checks.HIDDEN[1][0].text("en") in shown_text("en") and "verify" in shown_text("zh")


# §4.1 counts positions from 0, as its rows and its demo do: a position it names is one the demo has.
POSITION = {"zh": re.compile(r"(?:位置|第) ?(\d+)"), "en": re.compile(r"\b(?:position|row|token) (\d+)")}


@pytest.mark.parametrize("lang", EDITIONS)
def test_does_4_1_name_only_positions_its_demo_has(lang):
    """Every position or row §4.1 names by number is one of the demo's seq_len positions, counted from 0?"""
    seq_len = int(re.search(r"seq_len, hidden_dim = (\d+)", cell("demo-motivation", lang)).group(1))
    named = [int(n) for n in POSITION[lang].findall(cell("s41-motivation", lang))]
    assert named and max(named) < seq_len, named


# ---------- pointers: to a section, to a cell ----------

HEAD_DIM_POINTER = {"zh": re.compile(r"`head_dim` 是什么，(\d\.\d+) 节末尾就说"),
                    "en": re.compile(r"`head_dim` is defined at the end of section (\d\.\d+)")}
CELL_NAME = {"zh": re.compile(r"「([^」]+：[^」]+)」单元格"), "en": re.compile(r"in the cell \"([^\"]+)\"")}


def section(lang: str, number: str) -> str:
    """The text of section ``number`` (from its ``## number`` heading to the next ``## `` heading)."""
    text = edition_text(lang)
    start = text.index(f"## {number} ")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


@pytest.mark.parametrize("lang", EDITIONS)
def test_does_the_pointer_to_head_dim_name_the_section_that_defines_it(lang):
    """4.2 says where `head_dim` is defined: the end of that section (its last paragraph) defines it?"""
    number = HEAD_DIM_POINTER[lang].search(edition_text(lang)).group(1)
    last_paragraph = section(lang, number).strip().split("\n\n")[-1]
    assert "head_dim = hidden_dim / num_heads" in last_paragraph and number != "4.2"


@pytest.mark.parametrize("lang", EDITIONS)
def test_is_every_cell_the_prose_names_a_heading_of_the_chapter(lang):
    """A cell named by its heading (「任务 5：完整验证」单元格, the cell "Task 5: verify everything") exists by that name?"""
    headings = {line.lstrip("#").strip().replace("`", "") for line in edition_text(lang).splitlines() if line.startswith("#")}
    named = CELL_NAME[lang].findall(edition_text(lang))
    assert named and [n for n in named if n not in headings] == []


def test_does_the_english_verify_print_english_as_the_english_table_says():
    """The English 4.3 table says attnkit.verify prints English in this edition: it does, with no Chinese?"""
    printed = io.StringIO()
    verify.run_all(*lab.REFERENCE, file=printed, lang="en")
    assert "printed in English in this edition" in cell("s42-goals", "en") and not CJK.search(printed.getvalue())
