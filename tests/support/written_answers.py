"""A synthetic class's written answers for the marking page: templates, a gradebook and autograded notebooks.

Built from the real master (its cells and nbgrader metadata) and the real rubric
(``autograde/rubrics/ch04_attention.toml``), without a kernel or the nbgrader CLI, in about a
second for 300 students. Each student's answer to each of the 8 written questions is one of:

* **correct** — every rubric point, each in one of two phrasings, sometimes with a filler word;
* **partial** — one or two of the points, built the same way, often naming a missed point's key
  term without explaining it (so the page's keyword hint is wrong and the marker must tick by hand);
* **blank** — the untouched release stub (nbgrader's auto score 0), now and then with a space added;
* **copied** — exactly another student's (correct or partial) answer;
* **reformatted** — such a copy with spaces, punctuation and full/half-width characters changed.

:attr:`WrittenClass.truth` holds the rubric points each answer really covers, so a test can mark
the class as a careful instructor would and check the gradebook afterwards.
"""
import json
import pathlib
import random
import uuid
from dataclasses import dataclass, field

from nbgrader.api import Comment, Grade, Gradebook, SubmittedAssignment, SubmittedNotebook
from sqlalchemy import insert

from coursekit.assignments import editions_of
from coursekit.marking.rubric import load_rubrics
from coursekit.paths import ASSIGNMENT, COURSE, MASTER, source_notebook
from coursekit.stubs import text_stub
from coursekit.settings import course_config
from .synthetic_class import empty_gradebook

NOTEBOOK = ASSIGNMENT
STUB = text_stub(ASSIGNMENT, course_config(COURSE))

# Two phrasings of every rubric point, in rubric order (autograde/rubrics/ch04_attention.toml).
PHRASES = {
    "q_lab1_no_scale": [
        ["不缩放时最大权重是 0.999、0.352、0.998、0.988，多数行接近 1。", "多数行的最大的那个几乎拿走全部概率，接近 one-hot。"],
        ["但不是每行都这样：第 1 行有三个分数挤在一起，最大权重只有 0.352。", "有一行的最大权重只有 0.352，因为它有几个分数很接近。"],
        ["缩放以后每行最大权重降到 0.2 到 0.47，平缓得多。", "乘上 0.125 后最大权重只剩 0.3 左右，缩放不改变分数的排序。"],
        ["这时梯度很小，softmax 饱和，训练会变慢。", "权重饱和以后梯度几乎为零，不利于训练。"]],
    "q_lab2_neg_inf": [
        ["如果某一行全部被屏蔽，最大值是 -inf，-inf 减 -inf 得到 NaN，整行都是 NaN。", "整行都被屏蔽时会算出 -inf - (-inf)，结果是 NaN。"],
        ["只要每行还有没被屏蔽的位置，exp(-inf) = 0，结果和 -1e9 一样。", "一般情况下两者相同，因为被屏蔽处的指数都是 0。"],
        ["-1e9 是有限数，全屏蔽的行也只得到有限的权重，不会出现 NaN，所以更稳妥。", "用有限的 -1e9，全屏蔽的行在分数不大时得到均匀的权重。"]],
    "q_lab3_matmul_speed": [
        ["矩阵乘法快了好几个数量级。", "用 @ 比三层循环快上千倍。"],
        ["三层循环的每一次乘加都要经过 Python 解释器。", "Python 循环的每一步都由解释器执行。"],
        ["矩阵乘法交给编译好的 BLAS，用到连续内存、SIMD 和缓存分块。", "numpy 的 @ 调用 BLAS 库，能利用 SIMD 指令和缓存。"],
        ["seq_len 越大倍数越大，因为矩阵乘法每次调用的固定开销被摊薄了。", "倍数先涨，后来趋于平稳：两种写法的计算量都按 seq_len 的平方增长。"]],
    "q_lab4_num_params": [
        ["参数量不变，还是 4 × 64 × 64 = 16384，与头数无关。", "参数数量不变，投影矩阵的形状不随头数改变。"],
        ["多头可以在不同子空间里同时关注不同的位置。", "几个头能各自学习不同的关系，表达能力更强。"],
        ["代价是每个头的维度变小，单个头的匹配更粗。", "不过每个头只有 16 维，维度变小了。"]],
    "q_think1_scale": [
        ["每个乘积的均值是 0，方差是 E[q_i²]·E[k_i²] = 1。", "q_i 和 k_i 独立，期望可以拆开相乘，所以每个乘积的方差为 1。"],
        ["点积是 head_dim 个乘积之和，方差约为 head_dim，维度越大差距越大。", "head_dim 越大，点积的方差越大，分数拉得越开。"],
        ["softmax 按指数分配概率，差距一大最大项就趋近 1。", "分数差距大时 softmax 的结果变得极端，一个位置拿走几乎全部权重。"],
        ["除以 sqrt(head_dim) 把方差拉回 1，温度不随维度变化。", "缩放以后方差回到 1 左右，分布的温度保持稳定。"]],
    "q_think2_mask_order": [
        ["softmax 是按行归一化的，先做 softmax 时未来位置已经分走了概率。", "先 softmax 的话，未来的位置已经参与了归一化，分走了一部分权重。"],
        ["事后只清零的话，这一行的和就小于 1。", "之后把未来位置清零，每行加起来不再是 1，剩下的权重都偏小。"],
        ["清零以后再按行重新归一化，公共分母约掉，结果和先加掩码完全相同。", "先加 -1e9 一步到位：重新归一化虽然也能得到同样的权重，但多了一步。"]],
    "q_think3_max_trick": [
        ["softmax 对每一行加减同一个常数不变。", "分子分母同乘 exp(-c)，结果不变，所以可以减去任意常数。"],
        ["减去最大值后最大的指数是 exp(0) = 1，不会上溢，分母至少是 1。", "减掉最大值可以防止指数上溢，分母也不会变成 0。"],
        ["attention 的分数可能很大，还有 -1e9，同样需要这个技巧。", "在 attention 里分数含有 -1e9，也要靠这个办法保持稳定。"]],
    "q_think4_split": [
        ["三段各自有明确的输入输出，可以单独验证，出错时能立刻定位。", "每一段都能单独测试，哪里错了一眼就能定位。"],
        ["多头只是在外面加上投影、切分和拼接，没有新的数学。", "多头不过是多了投影和拼接，核心计算一样。"],
        ["一次只面对一个新概念，学起来不乱。", "能和 C 实验的 verify 逐项对照，知道自己做到了哪一步。"]],
}
# A partial answer that names a missed point's key term without saying it: the term suggests the point, wrongly.
MUDDLES = ["我不太明白{}在这里起什么作用。", "{}这部分我没有想清楚。", "可能也和{}有关，但我说不清。"]
FILLERS = ["", "", "", "我认为", "简单来说，", "所以", "答：", "从实验看，"]
CONNECTORS = ["", "", "另外，", "而且", "同时", "此外，"]
# What students add of their own, covering no rubric point: keeps two own answers from being one group.
ASIDES = ["我在上面的实验里也看到了这一点。", "这一点我不太确定。", "课上讲过类似的例子。", "上面单元格的输出也说明了这一点。",
          "和 C 实验里的结果一致。", "我改了几个参数试过。", "具体数字和机器有关。", "这也是老师强调过的。",
          "可以画图看出来。", "我一开始理解错了。", "书上第 3 章也提到过。", "这和直觉相符。"]
KINDS = (("correct", 0.22), ("partial", 0.16), ("blank", 0.17), ("copied", 0.28), ("reformatted", 0.17))
_WIDTH = str.maketrans({"，": ",", "。": ".", "（": "(", "）": ")", "：": ":", ",": "，", ".": "。"})


@dataclass
class WrittenClass:
    course: pathlib.Path
    url: str
    students: list
    answers: dict = field(default_factory=dict)   # {grade_id: {student: text}}
    truth: dict = field(default_factory=dict)     # {grade_id: {student: tuple of bools, one per rubric point}}
    kinds: dict = field(default_factory=dict)     # {grade_id: {student: kind}}


def master_cells() -> list:
    return json.loads(MASTER.read_text(encoding="utf-8"))["cells"]


def questions() -> list:
    return [c["metadata"]["nbgrader"]["grade_id"] for c in master_cells()
            if c["cell_type"] == "markdown" and c["metadata"].get("nbgrader", {}).get("solution")]


def _own(rng, phrases, points, terms=()) -> str:
    """An answer covering ``points``; ``terms`` of missed points may be named without being explained."""
    sentences = [rng.choice(CONNECTORS) + rng.choice(phrases[i]) for i in points]
    sentences += [rng.choice(MUDDLES).format(term) for term in terms]
    if rng.random() < 0.3:
        rng.shuffle(sentences)
    if rng.random() < 0.7:
        sentences.insert(rng.randrange(len(sentences) + 1), rng.choice(ASIDES))
    return rng.choice(FILLERS) + "".join(sentences)


def _reformat(rng, text) -> str:
    text = text.translate(_WIDTH) if rng.random() < 0.5 else text
    text = text.replace("，", "， ") if rng.random() < 0.5 else text.replace(" ", "")
    return ("  " if rng.random() < 0.5 else "") + text + ("\n" if rng.random() < 0.5 else "")


def class_answers(students: list, seed: int = 4) -> tuple:
    """({grade_id: {student: text}}, {grade_id: {student: truth}}, {grade_id: {student: kind}})."""
    answers, truth, kinds = {}, {}, {}
    rubric = load_rubrics(COURSE, ASSIGNMENT).by_question
    for q_index, question in enumerate(questions()):
        rng = random.Random(seed * 100 + q_index)
        phrases, n = PHRASES[question], len(PHRASES[question])
        text, covered, kind_of, sources = {}, {}, {}, []
        assigned = [rng.choices([k for k, _ in KINDS], [w for _, w in KINDS])[0] for _ in students]
        for student, kind in zip(students, assigned):  # own answers first: copies need sources
            if kind in ("correct", "partial"):
                points = list(range(n)) if kind == "correct" else sorted(rng.sample(range(n), rng.choice([1, 2])))
                missed = [rubric[question].points[i].terms[0] for i in range(n) if i not in points and rng.random() < 0.6]
                text[student] = _own(rng, phrases, points, missed)
                covered[student] = tuple(i in points for i in range(n))
                sources.append(student)
        popular = sources[:8]
        if not popular:  # a tiny class: the first student writes their own answer for the others to copy
            assigned[0] = "correct"
            return class_answers(students, seed + 1) if len(students) > 1 else class_answers(students[:0], seed)
        for student, kind in zip(students, assigned):
            if kind == "blank":
                text[student], covered[student] = STUB if rng.random() < 0.85 else STUB + " ", (False,) * n
            elif kind in ("copied", "reformatted"):
                source = rng.choice(popular)
                text[student] = text[source] if kind == "copied" else _reformat(rng, text[source])
                covered[student] = covered[source]
            kind_of[student] = kind
        answers[question], truth[question], kinds[question] = text, covered, kind_of
    return answers, truth, kinds


def _structure(gradebook: Gradebook, cells: list, assignment: str = ASSIGNMENT) -> None:
    gradebook.add_assignment(assignment)
    gradebook.add_notebook(assignment, assignment)  # one notebook, named as its assignment
    for cell in cells:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("grade"):
            gradebook.add_grade_cell(meta["grade_id"], assignment, assignment, max_score=float(meta["points"]),
                                     cell_type=cell["cell_type"])
        if meta.get("solution"):
            gradebook.add_solution_cell(meta["grade_id"], assignment, assignment)


def _notebook(cells: list, texts: dict) -> str:
    out = []
    for cell in cells:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if cell["cell_type"] == "markdown" and grade_id in texts:
            cell = dict(cell, source=texts[grade_id])
        out.append(cell)
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, ensure_ascii=False)


def write_written_class(course, n: int = 300, seed: int = 4, rubric: bool = True, padding: int = 0) -> WrittenClass:
    """A course folder with ``n`` autograded students (gradebook, autograded/, source/, config, rubric).

    ``padding`` bytes of (base64-like) output in one code cell make each notebook as heavy as a
    real autograded one with its figures (≈ 500 kB), for the benchmark.
    """
    course = pathlib.Path(course)
    (course / "source" / ASSIGNMENT).mkdir(parents=True, exist_ok=True)
    (course / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").write_bytes(MASTER.read_bytes())
    (course / "nbgrader_config.py").write_text((COURSE / "nbgrader_config.py").read_text(encoding="utf-8"),
                                               encoding="utf-8")
    if rubric:
        (course / "rubrics").mkdir(exist_ok=True)
        (course / "rubrics" / f"{ASSIGNMENT}.toml").write_bytes((COURSE / "rubrics" / f"{ASSIGNMENT}.toml").read_bytes())
    students = [f"s{i:03d}" for i in range(1, n + 1)]
    answers, truth, kinds = class_answers(students, seed)
    cells = master_cells()
    if padding:
        code = next(c for c in cells if c["cell_type"] == "code")
        code["outputs"] = [{"output_type": "display_data", "metadata": {},
                            "data": {"image/png": "iVBORw0KGgo" * (padding // 11)}}]
    url = empty_gradebook(course / "gradebook.db")
    with Gradebook(url) as gradebook:
        _structure(gradebook, cells)
        for student in students:
            gradebook.add_student(student)
        _submissions(gradebook, students, answers)
    for student in students:
        path = course / "autograded" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(_notebook(cells, {q: answers[q][student] for q in answers}), encoding="utf-8")
    return WrittenClass(course, url, students, answers, truth, kinds)


def _submissions(gradebook: Gradebook, students: list, answers: dict, assignment_name: str = ASSIGNMENT,
                 stub: str = STUB) -> None:
    """Submissions, grades and comments as nbgrader's autograde leaves them, in four bulk inserts (fast)."""
    db = gradebook.db
    assignment = gradebook.find_assignment(assignment_name)
    notebook = gradebook.find_notebook(assignment_name, assignment_name)
    cells = [(c.id, c.name, c.max_score) for c in notebook.grade_cells]
    solutions = [c.id for c in notebook.solution_cells]
    submissions, notebooks, grades, comments = [], [], [], []
    for student in students:
        sub_id, nb_id = uuid.uuid4().hex, uuid.uuid4().hex
        submissions.append({"id": sub_id, "assignment_id": assignment.id, "student_id": student})
        notebooks.append({"id": nb_id, "assignment_id": sub_id, "notebook_id": notebook.id, "flagged": False})
        for cell_id, name, points in cells:
            written = name in answers
            untouched = written and answers[name][student] == stub  # nbgrader's checksum: auto 0, no manual grade
            grades.append({"id": uuid.uuid4().hex, "notebook_id": nb_id, "cell_id": cell_id, "manual_score": None,
                           "auto_score": 0.0 if untouched else None if written else points,
                           "needs_manual_grade": written and not untouched})
        comments += [{"id": uuid.uuid4().hex, "notebook_id": nb_id, "cell_id": c} for c in solutions]
    for model, rows in ((SubmittedAssignment, submissions), (SubmittedNotebook, notebooks), (Grade, grades),
                        (Comment, comments)):
        db.execute(insert(model.__table__), rows)
    db.commit()


def add_edition_class(course, lang: str, answers: dict) -> str:
    """The ``lang`` edition's assignment added to a course :func:`write_written_class` made: its source and rubric
    from the repository, and an autograded notebook for each student of ``answers`` ({student: {grade_id: text}},
    every written answer given). Returns the assignment's name (``ch04_attention_en``)."""
    course, assignment = pathlib.Path(course), editions_of(ASSIGNMENT, course_config(COURSE))[lang]
    source = source_notebook(COURSE, assignment)
    (course / "source" / assignment).mkdir(parents=True, exist_ok=True)
    (course / "source" / assignment / source.name).write_bytes(source.read_bytes())
    (course / "rubrics" / f"{assignment}.toml").write_bytes((COURSE / "rubrics" / f"{assignment}.toml").read_bytes())
    nb = json.loads(source.read_text(encoding="utf-8"))
    cells = nb["cells"]
    by_question = {q: {s: texts[q] for s, texts in answers.items()} for q in next(iter(answers.values()))}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        _structure(gradebook, cells, assignment)
        for student in answers:
            gradebook.update_or_create_student(student)
        _submissions(gradebook, list(answers), by_question, assignment, text_stub(assignment, course_config(COURSE), nb))
    for student, texts in answers.items():
        path = course / "autograded" / student / assignment / f"{assignment}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_notebook(cells, texts), encoding="utf-8")
    return assignment


def rubric_points() -> dict:
    """{grade_id: number of rubric points} of the real rubric."""
    rubrics = load_rubrics(COURSE, ASSIGNMENT)
    return {q: len(r.points) for q, r in rubrics.by_question.items()}
