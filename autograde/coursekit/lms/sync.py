"""One round of the course's LMS sync: the roster in, then every changed score out that differs from the LMS's.

What the round does, in order:

1. **Launches** (from the hub), of the course's own LMS contexts only (the hub names them: the settings file's
   ``context_ids``, else the context of the first instructor launch); a launch of any other context, however new and
   whoever's, is dropped. From the instructors' launches of each context: the platform's issuer, the context's line
   items and membership URLs, the line item a platform made for a link (Canvas does, for an assignment), kept per
   context in ``lms/state.json``; a learner's launch only ever adds that learner to the roster, in their context.
2. **Roster** (:mod:`.roster`): per context, NRPS where its instructor's launch offered it, and the launches, into
   the gradebook — when a new launch came, or :data:`ROSTER_SECONDS` after the last time; each learner's context
   (their section) is kept, since their score goes to its line item.
3. **Scores** (:mod:`.score`): for each marker (:mod:`.outbox`), the score from the gradebook as it is now; equal to
   what the LMS last accepted: nothing to do; else one post (a new timestamp) to the line item of the student's
   context, recorded, the marker removed.

A round that meets the LMS down (:class:`.platform.LMSDown`) stops, leaves every marker where it is, and notes when
to try again (:meth:`.outbox.State.failed`): grading never waits for it, and nothing is lost. A score the LMS refuses
(4xx) keeps its marker, is tried again after its own back-off and is named by ``make service-status``.
"""
import copy
import dataclasses
import datetime
import time

from ..assignments import assignment_of
from ..gradebook import one_moment, open_gradebook, resolve_gradebook
from ..language import WORDS
from ..settings import course_config, course_settings
from . import outbox, roster
from .launch import INSTRUCTOR
from .platform import LMSDown, Platform, Refused
from .score import scores_of

__all__ = ["ROSTER_SECONDS", "Round", "Sync"]

ROSTER_SECONDS = 600.0


@dataclasses.dataclass
class Round:
    posted: int = 0      # scores the LMS accepted this round
    same: int = 0        # already in the LMS as they are
    waiting: int = 0     # markers left for a later round
    refused: list = dataclasses.field(default_factory=list)
    roster: int = 0      # gradebook rows added or changed
    down: str = ""       # why the LMS could not be reached (the machine's fault)

    def line(self, lang: str) -> str:
        """The round in one line (and one more per refused score), in ``lang`` (the course's)."""
        said = WORDS.say(lang, "lms.round", posted=self.posted, same=self.same, roster=self.roster,
                         waiting=self.waiting)
        said += WORDS.say(lang, "lms.round_down", down=self.down) if self.down else ""
        return said + "".join(WORDS.say(lang, "lms.round_refused", why=why) for why in self.refused)


def _stamp(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(timespec="milliseconds")


class Sync:
    """The LMS sync of ``course``: ``broker`` is the hub (:class:`.hub_client.HubBroker`), ``clock`` wall seconds."""

    def __init__(self, course, broker, clock=time.time):
        self.course, self.broker, self.clock = course, broker, clock
        self.platform, self.config = Platform(broker.tokens), course_config(course)
        self.lang = course_settings(course).language  # what it tells the instructor in
        self.state, self.seen = outbox.State(course), -1

    def _gradebook(self):
        return open_gradebook(resolve_gradebook(self.course))

    def learn(self) -> list:
        """The launches of the course's own contexts, and what their instructors' launches say of each context (never
        a learner's: nobody's launch but an instructor's says where scores go): the platform, the context's service
        URLs and the line items the platform made for a link, kept in ``state.json`` under ``contexts``. A context
        that is no longer the course's is forgotten with what it said."""
        told = self.broker.launches()
        ours = [x for x in told.launches if x.context_id and x.context_id in told.contexts]
        contexts = {c: copy.deepcopy(said) for c, said in self.state.get("contexts", {}).items() if c in told.contexts}
        for x in sorted((x for x in ours if x.role == INSTRUCTOR), key=lambda x: x.at):
            said = contexts.setdefault(x.context_id, {"line_items": {}})
            said.update(issuer=x.issuer, title=x.context_title, lineitems=x.lineitems or said.get("lineitems", ""),
                        memberships=x.memberships or said.get("memberships", ""))
            if x.lineitem and x.assignment(self.config):
                said["line_items"][assignment_of(x.assignment(self.config), self.config).master] = x.lineitem
        if contexts != self.state.get("contexts"):
            self.state.set(contexts=contexts)
        return ours

    def roster(self, force=False) -> int:
        launches = self.learn()
        if not force and len(launches) == self.seen and \
                self.clock() - self.state.get("roster_at", 0) < ROSTER_SECONDS:
            return 0
        found, sections = {}, {}
        for context in sorted({x.context_id for x in launches} | set(self.state.get("contexts", {}))):
            said = self.state.get("contexts", {}).get(context, {})
            members = self.platform.members(said["memberships"]) if said.get("memberships") else []
            mine = [x for x in launches if x.context_id == context]
            for person in roster.people(mine, members, said.get("issuer") or next((x.issuer for x in mine), "")):
                found[person.student], sections[person.sub] = person, context
        with self._gradebook() as gradebook:
            changed = roster.into_gradebook(gradebook, sorted(found.values(), key=lambda p: p.student))
        self.seen = len(launches)
        self.state.set(roster_at=self.clock(), sections=sections)
        return changed

    def _context_of(self, score) -> dict:
        """What the course knows of the LMS context of ``score``'s student (their section's line items): the one the
        roster found their LMS id in, else the course's only one; a :class:`.platform.Refused` naming what is
        missing."""
        contexts, section = self.state.get("contexts", {}), self.state.get("sections", {}).get(score.user_id)
        if not contexts:
            raise Refused(WORDS.say(self.lang, "lms.no_instructor_launch"))
        if section is None and len(contexts) == 1:
            return next(iter(contexts.values()))
        if section not in contexts:
            raise Refused(WORDS.say(self.lang, "lms.section_not_launched", student=score.student,
                                    section=section or WORDS.say(self.lang, "lms.on_no_roster")))
        return contexts[section]

    def line_item(self, score) -> str:
        """The URL of ``score``'s line item in the student's context: known, found on the LMS by its resource id,
        or made there."""
        said = self._context_of(score)
        known = said.setdefault("line_items", {})
        if score.line_item in known:
            return known[score.line_item]
        if not said.get("lineitems"):
            raise Refused(WORDS.say(self.lang, "lms.no_line_items", title=repr(said.get("title", ""))))
        url = self.platform.find_line_item(said["lineitems"], score.line_item) or \
            self.platform.create_line_item(said["lineitems"], score.line_item, score.line_item, score.maximum)
        known[score.line_item] = url
        self.state.set(contexts=self.state.get("contexts"))
        return url

    def _key(self, mark) -> tuple:
        return assignment_of(mark.assignment, self.config).master, mark.student

    def scores(self, marks, everyone=False) -> dict:
        everyone = everyone or any(m.everyone for m in marks)
        keys = None if everyone else {self._key(m) for m in marks}
        with self._gradebook() as gradebook, one_moment(gradebook):  # never a mark's score without its mark
            return scores_of(gradebook, self.config, keys)

    def _post(self, score, ledger, result: Round) -> bool:
        """Post ``score`` unless the LMS has it; False when the LMS refused it (its back-off noted)."""
        refused = self.state.get("refused", {})
        name = f"{score.line_item} {score.student}"
        if ledger.same(score.key, score.body()):
            result.same += 1
        elif name in refused and self.clock() < refused[name]["retry_at"]:
            return False
        else:
            try:
                stamp = _stamp(self.clock())
                self.platform.post_score(self.line_item(score), score.payload(stamp))
            except Refused as error:
                attempts = refused.get(name, {}).get("attempts", 0) + 1
                refused[name] = {"cause": str(error), "attempts": attempts,
                                 "retry_at": self.clock() + outbox.backoff(attempts)}
                self.state.set(refused=refused)
                result.refused.append(f"{name}: {error}")
                return False
            ledger.posted(score.key, score.body(), stamp, self.clock())
            result.posted += 1
        if refused.pop(name, None):
            self.state.set(refused=refused)
        return True

    def post(self, everyone=False) -> Round:
        """Post what changed (see the module's docstring), or with ``everyone`` every score that differs from what the
        LMS last accepted, whatever the markers say (``make lms-sync``: the hub's sync may have taken its marker
        meanwhile); what the round did."""
        marks, result = outbox.markers(self.course), Round()
        if not (marks or everyone) or not self.state.may_try(self.clock()):
            result.waiting = len(marks)
            return result
        try:
            scores, ledger, kept = self.scores(marks, everyone), outbox.Ledger(self.course), set()
            for key, score in sorted(scores.items()):
                if not self._post(score, ledger, result):
                    kept.add(key)
        except LMSDown as error:
            self.state.failed(str(error), self.clock())
            result.down, result.waiting = str(error), len(marks)
            return result
        self.state.answered()
        for mark in marks:
            if not (kept and (mark.everyone or self._key(mark) in kept)):
                outbox.done(mark)
        result.waiting = len(outbox.markers(self.course))
        return result
