"""``nbgrader collect`` and ``nbgrader list --inbound`` with every inbound folder through :mod:`coursekit.inbound`.

nbgrader's folder exchange collects with ``shutil.copytree``, following links (a notebook linked to the master is
collected as the master), warns and goes on when a folder's owner is not the student it names, and stops the
whole class at a name it cannot parse. The course's config plugs these in instead::

    c.ExchangeFactory.collect = exchange.CheckedCollect
    c.ExchangeFactory.list = exchange.CheckedList

:class:`CheckedCollect` takes, per student, the newest folder :func:`coursekit.inbound.examine` accepts (nbgrader's
choice otherwise: :func:`coursekit.upstream.nbgrader.collected_submission`) and copies it with
:func:`coursekit.inbound.collect`; a refused folder is logged (``Refused, never collected: …``) and the class goes
on. The grading service collects with it on any folder exchange (:mod:`coursekit.service.steps`).
:class:`CheckedList` lists only the folders it accepts, each refused one logged; nbgrader's own listing then
opens their ``submission_secret.txt`` and notebooks itself (following links), which leaves a race
(autograde/README.md, "Limits").
"""
import collections
import os
import pathlib

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.exchange.default.list import ExchangeList
from nbgrader.utils import check_mode

from .inbound import Refused, collect, examine, limits_of
from .upstream.nbgrader import collected_submission, left_out, share_with_group, should_collect

__all__ = ["CheckedCollect", "CheckedList", "REFUSED"]

REFUSED = "Refused, never collected: %s"  # how collect and list log a refused folder


class CheckedCollect(ExchangeCollect):
    """nbgrader's collect of the folder exchange through :mod:`coursekit.inbound`. After :meth:`start`:
    ``refused``, every folder of the assignment refused; ``copy_refused``, ``{student: Refusal}`` of the folders
    chosen to be collected and refused while copied (changed since they were examined)."""

    refused, copy_refused = (), {}

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        self.limits = limits_of(self.config, self.check_owner)
        found, self.refused = examine(self.inbound_path, self.limits, self.coursedir.assignment_id,
                                      self.coursedir.student_id or None)
        for refusal in self.refused:
            self.log.warning(REFUSED, refusal)
        self.src_records = self._chosen(found)

    def _chosen(self, found) -> list:
        """Each student's folder to collect, among the accepted ``found``."""
        by_student, duedate = collections.defaultdict(list), self._duedate()
        for folder in sorted(found, key=lambda f: f.when, reverse=True):
            by_student[folder.student].append(folder)
        return [collected_submission(folders, duedate, self.before_duedate) for folders in by_student.values()]

    def _duedate(self):
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
            try:
                return gradebook.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                return None

    def copy_files(self):
        assignment, course = self.coursedir.assignment_id, self.coursedir.course_id
        if not self.src_records:
            self.log.warning(f"No submissions of '{assignment}' for course '{course}' to collect")
        else:
            self.log.info(f"Processing {len(self.src_records)} submissions of '{assignment}' for course '{course}'")
        self.copy_refused = {}
        for folder in self.src_records:
            self._collect_one(folder)

    def _collect_one(self, folder) -> None:
        coursedir = self.coursedir
        dest = pathlib.Path(coursedir.format_path(coursedir.submitted_directory, folder.student, coursedir.assignment_id))
        existing = coursedir.get_existing_timestamp(str(dest)) if dest.is_dir() else None
        if dest.is_dir() and not should_collect(existing, folder.when, self.update, self.before_duedate):
            self.log.info(f"No newer submission to collect: {folder.student} {coursedir.assignment_id}" if self.update
                          else f"Submission already exists, use --update to update: {folder.student} "
                               f"{coursedir.assignment_id}")
            return
        self.log.info(f"{'Updating' if dest.is_dir() else 'Collecting'} submission: {folder.student} "
                      f"{coursedir.assignment_id}")
        try:
            collect(folder, dest, self.limits, self._left_out)
        except Refused as refused:
            self.copy_refused[folder.student] = refused.refusal
            self.log.warning(REFUSED, refused.refusal)
            return
        if coursedir.groupshared:
            share_with_group(dest, self.log)

    def _left_out(self, name: str, is_file: bool, size: int) -> bool:
        why = left_out(name, is_file, size, self.coursedir)
        if why:
            getattr(self.log, why[0])(why[1])
        return why is not None


class CheckedList(ExchangeList):
    """nbgrader's listing; inbound, only the folders :func:`coursekit.inbound.examine` accepts (each refused one
    logged as a warning)."""

    def init_dest(self):
        super().init_dest()
        if self.inbound:
            self.assignments = self._accepted(self.assignments)

    def _accepted(self, paths) -> list:
        limits, kept = limits_of(self.config), set()
        assignment, student = self.coursedir.assignment_id or None, self.coursedir.student_id or None
        for inbound in sorted({os.path.dirname(path) for path in paths}):
            found, refused = examine(inbound, limits, assignment, student)
            kept |= {str(folder.path) for folder in found}
            for refusal in refused:
                self.log.warning(REFUSED, refusal)
        return [path for path in paths if path in kept]
