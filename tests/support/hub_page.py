"""A hub user in Chromium: log in, the Nbgrader menu, the Assignment List, code typed into a fetched notebook,
the course's notifications (feedback ready, or why it will not come) and the feedback page they open.

Used by test_hub.py (the whole loop, instructor and students; then a student who submits and is told of their
feedback with nobody else acting) and benchmarks/bench_notify.py.
Screenshots land in ``artefacts/hub/``.
"""
import gettext
import importlib
import pathlib
import re

import nbformat
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from coursekit.paths import ASSIGNMENT
from support import lab_page
from support.axe_audit import assert_accessible
from support.editions import ASSIGNMENTS
from support.hub_tools import ARTEFACTS, server_api, user_token
from support.mistakes import submission

NOTEBOOK = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
# Validate counts an untouched written answer as missing; the English edition's student writes English
ANSWERS = {"zh": "（hub 测试写下的回答）", "en": "(an answer the hub test wrote)"}
ANSWER = ANSWERS["zh"]
LONG = 180_000  # ms: a first server start or Validate on a busy 2-core machine
SHORT = 60_000  # ms: anything else the page shows


def log_in(browser, plan, user):
    """A new browser session of ``user``, logged in to the hub and showing their JupyterLab."""
    page = browser.new_context(viewport=lab_page.VIEWPORT).new_page()
    page.set_default_timeout(SHORT)
    page.goto(f"{plan.url}hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", plan.passwords[user])
    page.click("#login_submit")
    page.wait_for_url(re.compile(f"/user/{user}/lab"), timeout=LONG)
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").wait_for(timeout=LONG)
    return page


def audit_log_in_page(browser, plan):
    """The hub's log-in page, as a student first meets it: no WCAG 2.1 A/AA violation (support/axe_audit.py)."""
    page = browser.new_context(viewport=lab_page.VIEWPORT).new_page()
    try:
        page.goto(f"{plan.url}hub/login")
        assert_accessible(page, "hub-log-in")
    finally:
        page.context.close()


def audit_feedback_page(page, plan, student, stamp, assignment=ASSIGNMENT):
    """The feedback page a student opened (Lab shows it in an untrusted frame), opened from its file in a tab of
    their browser: no WCAG 2.1 A/AA violation."""
    path = pathlib.Path(plan.homes[student]) / assignment / "feedback" / stamp / f"{assignment}.html"
    tab = page.context.new_page()
    try:
        tab.goto(path.as_uri())
        assert_accessible(tab, "feedback-page")
    finally:
        tab.close()


def shot(page, name):
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTEFACTS / f"{name}.png")


SHOWN_BY = {"Assignment List": "#released_assignments_list", "Formgrader": "#formgrader"}  # a menu item's panel


def open_from_nbgrader_menu(page, item):
    """Open ``item`` of Lab's Nbgrader menu; wait until its panel is visible."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    page.locator(".lm-Menu-itemLabel").get_by_text(item, exact=True).click()
    page.locator(SHOWN_BY[item]).first.wait_for(state="visible")


def lab_says(locale, words):
    """JupyterLab's English ``words`` ("Ok" …) as its language pack for ``locale`` (``zh_CN``, the course's
    ``locale.jupyterlab``) says them: the pack's own catalogue, read with gettext; English when no pack."""
    try:
        pack = importlib.import_module(f"jupyterlab_language_pack_{locale}")
    except ImportError:
        return words
    folder = pathlib.Path(pack.__file__).parent / "locale"
    return gettext.translation("jupyterlab", folder, languages=[locale], fallback=True).gettext(words)


def accept(dialog):
    """Close a Lab dialog with its accept button (Lab's "Ok", in whatever language that Lab speaks: its class
    ``jp-mod-accept``, not a word); its label, once the dialog is gone."""
    button = dialog.locator(".jp-Dialog-footer button.jp-mod-accept")
    label = button.inner_text().strip()
    button.click()
    dialog.wait_for(state="detached")
    return label


def list_label(label, lang="zh"):
    """nbgrader's English ``label`` in its Assignment List ("Fetch", "(view feedback)" …) as the course's Lab
    extension says it to a student of the ``lang`` edition (texts.ts)."""
    english = lab_page.extension_words("en", "assignmentList")
    key = next(key for key, words in english.items() if words == label)
    return lab_page.extension_words(lang, "assignmentList")[key]


def _labelled(label, lang="zh"):
    return re.compile(f"^{re.escape(list_label(label, lang))}$", re.I)  # the page capitalises "fetch" with CSS


def assignment_list_button(page, section, label, lang="zh"):
    """The button nbgrader labels ``label`` in the Assignment List's released / fetched / submitted section, as a
    student of the ``lang`` edition reads it."""
    return page.locator(f"#{section}_assignments_list").get_by_role("button", name=_labelled(label, lang))


def fresh_lab(page):
    """The student's Lab loaded again with its workspace reset (``?reset``): no tab restored in front of the panel
    opened next, and none naming a file that is gone (a withdrawn assignment's feedback page: Lab would open a
    "Cannot open" dialog over everything)."""
    lab = re.sub(r"/lab(/.*)?$", "/lab", page.url.split("?", 1)[0].split("#", 1)[0])  # not a file's /lab/tree/…
    page.goto(lab + "?reset")
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").wait_for()


def visible_button(page, section, assignment, label, attempts=4):
    """``assignment``'s button nbgrader labels ``label`` in the Assignment List in front (``:visible``: a panel Lab
    restored behind it may hold the same ids), as a student of that assignment's edition reads it; Lab reloaded and
    the list opened again until the row is there (seen on a busy machine: the row in the page but not shown). Each
    miss leaves a screenshot, the last one the page's HTML."""
    row = page.locator(f"#{section}_assignments_list:visible > .list_item", has_text=assignment)
    lang = next((lang for lang, edition in ASSIGNMENTS.items() if edition == assignment), "zh")
    button = row.get_by_role("button", name=_labelled(label, lang))
    for attempt in range(attempts):
        try:
            button.wait_for(state="visible", timeout=10_000)
            return button
        except PlaywrightTimeout:
            shot(page, f"no_{label.lower().replace(' ', '_')}_button_for_{assignment}_{attempt}")
            if attempt == attempts - 1:
                (ARTEFACTS / f"no_{label.lower()}_button_for_{assignment}.html").write_text(page.content())
                raise
            fresh_lab(page)
            open_from_nbgrader_menu(page, "Assignment List")


def assignment_row(page, section, assignment):
    """One assignment's row in the Assignment List's released / fetched / submitted section (its buttons, its
    notebooks), where the list holds more than one (an edition's assignment beside the master's)."""
    return page.locator(f"#{section}_assignments_list > .list_item", has_text=assignment)


def type_code(plan, student, implementations, over=None, assignment=ASSIGNMENT, unanswered=()):
    """What the student types, saved through their own server's contents API (their token): the three
    functions ``implementations`` names (mistake-table keys) and a line in every written answer (in the
    notebook's language) but those whose grade ids ``unanswered`` names, into the fetched notebook of
    ``assignment`` as it is, or ``over`` it (the release: code already typed is replaced)."""
    token, notebook = user_token(plan, student), f"{assignment}/{assignment}.ipynb"
    status, model = server_api(plan, student, f"contents/{notebook}", token)
    assert status == 200, f"{student}'s fetched notebook: HTTP {status}"
    nb = submission(over or nbformat.from_dict(model["content"]), *implementations)
    answer = ANSWERS[nb.metadata.get("edition", {}).get("language", "zh")]
    for cell in nb.cells:
        grading = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown" and grading.get("solution") and grading.get("grade_id") not in unanswered:
            cell.source = answer
    status, _ = server_api(plan, student, f"contents/{notebook}", token, "PUT",
                           {"type": "notebook", "format": "json", "content": nb})
    assert status == 200, f"saving {student}'s notebook: HTTP {status}"


def open_notebook(page, plan, user, assignment=ASSIGNMENT):
    """The user's fetched notebook of ``assignment`` open in their Lab (the workspace reset first: nothing stale
    restored), its cells drawn."""
    fresh_lab(page)
    page.goto(f"{plan.url}user/{user}/lab/tree/{assignment}/{assignment}.ipynb")
    page.locator(".jp-Notebook .jp-CodeCell").first.wait_for(timeout=LONG)


def type_unsaved(page, contains: str, source: str):
    """In the notebook in front, the code cell holding ``contains`` typed over with ``source`` in its editor, as a
    student types, and not saved: its tab then shows unsaved changes."""
    editor = page.locator(".jp-Notebook .jp-CodeCell", has_text=contains).first.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(source)  # no key events: the editor's auto-indent and brackets stay out of it
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-dirty").first.wait_for()


def feedback_stamps(plan, student, assignment=ASSIGNMENT) -> list:
    """The submission timestamps whose feedback ``student`` has fetched (their server's contents API)."""
    status, folder = server_api(plan, student, f"contents/{assignment}/feedback", user_token(plan, student))
    return sorted(entry["name"] for entry in folder["content"]) if status == 200 else []


def _shown_page(page, name, shows):
    """The feedback page the HTML viewer shows, untrusted (no scripts), once it shows ``shows``: its text."""
    viewer = page.locator(".jp-HTMLViewer", has=page.locator("iframe")).last
    viewer.wait_for(timeout=SHORT)
    assert viewer.locator("iframe").get_attribute("sandbox").split() == ["allow-same-origin"]  # no scripts
    body = page.frame_locator(".jp-HTMLViewer iframe").last.locator("body")
    body.get_by_text(shows).first.wait_for(timeout=SHORT)
    shot(page, name)
    return body.inner_text()


def open_feedback(page, stamp, name, shows="目前得分"):
    """One click on "(view feedback)" of the submission ``stamp`` in the open Assignment List, as the
    student does: the course's Lab extension opens the page in Lab's HTML viewer, untrusted (a tab
    already open on it is read from disk again). Its visible text, once it shows ``shows`` (the score line)."""
    row = page.locator("#submitted_assignments_list .nested_list_item", has_text=stamp)  # one submission's row
    row.get_by_text(list_label("(view feedback)")).click()
    return _shown_page(page, name, shows)


# A Lab notification (a toast): its message, its buttons
TOAST, TOAST_MESSAGE = ".Toastify__toast", ".jp-toast-message"


def notification(page, pattern, timeout_ms=SHORT):
    """The course's notification whose message matches ``pattern`` (a regular expression), once Lab shows it:
    its locator (the toast). Nobody clicks anything meanwhile."""
    toast = page.locator(TOAST, has=page.locator(TOAST_MESSAGE, has_text=re.compile(pattern))).first
    toast.wait_for(timeout=timeout_ms)
    return toast


def notification_text(toast) -> str:
    return toast.locator(TOAST_MESSAGE).inner_text().strip()


def open_from_notification(toast, page, name, shows="目前得分", button="查看反馈"):
    """One click on the notification's button (查看反馈; "Open feedback" for the English edition): the page, as
    "(view feedback)" shows it; its text."""
    toast.get_by_role("button", name=button).click()
    return _shown_page(page, name, shows)
