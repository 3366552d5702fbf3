"""What the tests and the benchmarks share: the mistake table, course runs, servers, a browser page.

Not tests themselves: :mod:`.mistakes` (the table of student mistakes), :mod:`.course_tools`
(the real nbgrader CLI on a throw-away course), :mod:`.classes` (graded classes shared by a whole
test session), :mod:`.synthetic_class` (a gradebook and autograded notebooks without grading),
:mod:`.lab_server` / :mod:`.lab_page` (JupyterLab and Chromium), :mod:`.postgres_server`,
:mod:`.hub_tools`, :mod:`.report_page`, :mod:`.written_answers` (a class's written answers for the marking
page) and :mod:`.marking_page` (marking it in Chromium by keyboard, presses counted).
"""
