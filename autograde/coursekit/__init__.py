"""Instructor-side code of the nbgrader course: runs in nbgrader's process or behind `make` targets.

Never imported by a student's kernel (the kernel-side grader is ``autograde/grader``).
``autograde/nbgrader_config.py`` puts ``autograde/`` on ``sys.path`` and imports from here.
"""
