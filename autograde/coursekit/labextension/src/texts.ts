/**
 * Everything the extension says to a student, in each edition's language: the messages of coursekit's catalogue
 * (ids lab.*), written into ./catalogue.ts by `make translations` (the pseudo-locale's included), each language's
 * words made from them here.
 *
 * The language is the submission's (its notebook's `metadata.edition.language`, read by the student's
 * server: coursekit/plugins/feedback_watch.py), or the validated notebook's (validation.ts); Chinese, the
 * course's own, when it says nothing else.
 */

import { CATALOGUE } from './catalogue';

/** A language the catalogue speaks: the course's editions' ('zh', 'en') and the pseudo-locale ('qps'). */
export type Language = keyof typeof CATALOGUE;

/**
 * nbgrader's own words around Validate's results (its Lab extension's dialog, in English whatever the notebook):
 * what validation.ts says in the notebook's language instead. tests/unit/test_labextension.py checks that nbgrader's
 * installed build still writes each of them.
 */
export const NBGRADER_WORDS = {
  title: 'Validation Results',
  failed: 'The following cell failed:',
  passed: 'The following cell passed:',
  changed: 'The source of the following cell has changed, but it should not have!',
  success: 'Success! Your notebook passes all the tests.',
  error: 'There was an error running the validate command:',
  partial: 'Partial credit; passed some but not all of the tests' // the server's error for a partly passing test cell
} as const;

export type IValidationTexts = { readonly [word in keyof typeof NBGRADER_WORDS]: string };

/**
 * nbgrader's own words in its Assignment List (its Lab extension writes them in English, with no translation domain
 * a language pack could fill): what assignments.ts says in the student's language instead, each matched whole.
 * tests/unit/test_labextension.py checks that nbgrader's installed build still writes each of them.
 */
export const NBGRADER_LIST_WORDS = {
  title: 'Assignments', // its tab's label
  course: 'Released, downloaded, and submitted assignments for course:',
  released: 'Released assignments',
  downloaded: 'Downloaded assignments',
  submitted: 'Submitted assignments',
  noReleased: 'There are no assignments to fetch.',
  noDownloaded: 'There are no downloaded assignments.',
  noSubmitted: 'There are no submitted assignments.',
  loading: 'Loading, please wait...',
  fetch: 'Fetch',
  fetching: 'Fetching...',
  submit: 'Submit',
  submitting: 'submitting...',
  fetchFeedback: 'Fetch Feedback',
  fetchingFeedback: 'Fetching Feedback...',
  viewFeedback: '(view feedback)',
  feedbackToFetch: '(feedback available to fetch)',
  validate: 'Validate',
  validating: 'Validating...',
  noCourses: 'No courses found.'
} as const;

export type IListTexts = { readonly [word in keyof typeof NBGRADER_LIST_WORDS]: string };

export interface ITexts {
  /** A submission is in, nothing decided yet (graded, queued, or held back by a fault the service retries). */
  received(at: string): string;
  /** A submission of an assignment the grading service does not grade: the instructor will. */
  receivedByInstructor(at: string): string;
  ready(score: string, maxScore: string, pending: number): string;
  readyWithoutScore: string;
  notGraded: string;
  cooldown(until: string): string;
  attempts(limit: number): string;
  deadline: string;
  paused: string;
  open: string;
  /** Validate or Submit saved the notebooks (`names`) with unsaved changes first (`submitting`: Submit). */
  savedFirst(names: string, submitting: boolean): string;
  /** … could not save them: nothing was validated or submitted. */
  notSaved(names: string, submitting: boolean, error: string): string;
  /** An assignment's due date in the Assignment List, and the student's own extension when they have one. */
  due(when: string, until: string | null): string;
  /** The locale dates are written in (the student's time zone is their browser's). */
  locale: string;
  /** The frame of Validate's results, in place of nbgrader's English (NBGRADER_WORDS). */
  validation: IValidationTexts;
  /** nbgrader's Assignment List, in place of its English (NBGRADER_LIST_WORDS). */
  assignmentList: IListTexts;
}

export const DEFAULT_LANGUAGE: Language = 'zh';

type Values = { readonly [name: string]: string | number };
type Messages = { readonly [id: string]: string | readonly string[] };

/** A message's {name} placeholders filled, as Python's str.format fills them ({{ and }}: literal braces). */
function fill(text: string, values: Values): string {
  return text.replace(/\{\{|\}\}|\{(\w+)\}/g, (whole, name?: string) =>
    name === undefined ? whole[0] : name in values ? String(values[name]) : whole
  );
}

/** The form of a plural for `n` by the catalogue's Plural-Forms (the rules of one or two forms); else the first. */
function formOf(rule: string, n: number): number {
  return /nplurals=2; plural=\(n != 1\)/.test(rule) ? (n === 1 ? 0 : 1) : 0;
}

/** A language's words, from its messages in the catalogue (./catalogue.ts, written by `make translations`). */
function textsFrom(messages: Messages): ITexts {
  const say = (id: string, values: Values = {}): string => {
    const text = messages[id];
    return typeof text === 'string' ? fill(text, values) : id;
  };
  const sayN = (id: string, n: number, values: Values = {}): string => {
    const forms = messages[id];
    if (!Array.isArray(forms)) return id;
    return fill(forms[Math.min(formOf(String(messages['']), n), forms.length - 1)], { n, ...values });
  };
  return {
    received: at => say('lab.received', { at }),
    receivedByInstructor: at => say('lab.received_by_instructor', { at }),
    ready: (score, maxScore, pending) =>
      say('lab.ready', { score, max_score: maxScore }) + (pending > 0 ? sayN('lab.ready_pending', pending) : ''),
    readyWithoutScore: say('lab.ready_without_score'),
    notGraded: say('lab.not_graded'),
    cooldown: until => say('lab.cooldown', { until }),
    attempts: limit => say('lab.attempts', { limit }),
    deadline: say('lab.deadline'),
    paused: say('lab.paused'),
    open: say('lab.open'),
    savedFirst: (names, submitting) =>
      submitting ? say('lab.saved_first_submit', { names }) : say('lab.saved_first_validate', { names }),
    notSaved: (names, submitting, error) =>
      submitting ? say('lab.not_saved_submit', { names, error }) : say('lab.not_saved_validate', { names, error }),
    due: (when, until) => say('lab.due', { when }) + (until ? say('lab.due_extension', { until }) : ''),
    locale: say('locale.html_lang'),
    validation: {
      title: say('lab.validation.title'),
      failed: say('lab.validation.failed'),
      passed: say('lab.validation.passed'),
      changed: say('lab.validation.changed'),
      success: say('lab.validation.success'),
      error: say('lab.validation.error'),
      partial: say('lab.validation.partial')
    },
    assignmentList: {
      title: say('lab.list.title'),
      course: say('lab.list.course'),
      released: say('lab.list.released'),
      downloaded: say('lab.list.downloaded'),
      submitted: say('lab.list.submitted'),
      noReleased: say('lab.list.no_released'),
      noDownloaded: say('lab.list.no_downloaded'),
      noSubmitted: say('lab.list.no_submitted'),
      loading: say('lab.list.loading'),
      fetch: say('lab.list.fetch'),
      fetching: say('lab.list.fetching'),
      submit: say('lab.list.submit'),
      submitting: say('lab.list.submitting'),
      fetchFeedback: say('lab.list.fetch_feedback'),
      fetchingFeedback: say('lab.list.fetching_feedback'),
      viewFeedback: say('lab.list.view_feedback'),
      feedbackToFetch: say('lab.list.feedback_to_fetch'),
      validate: say('lab.list.validate'),
      validating: say('lab.list.validating'),
      noCourses: say('lab.list.no_courses')
    }
  };
}

export const TEXTS = Object.fromEntries(
  Object.entries(CATALOGUE).map(([language, messages]) => [language, textsFrom(messages)])
) as { readonly [language in Language]: ITexts };

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(CATALOGUE, value);
}

/** The words of `language` (one the catalogue speaks); Chinese for anything else. */
export function textsOf(language: unknown): ITexts {
  return isLanguage(language) ? TEXTS[language] : TEXTS[DEFAULT_LANGUAGE];
}

/** `iso` (an instant) as a student reads it: in `language`'s words, in their browser's time zone, the zone named. */
export function dateText(iso: string, language: unknown): string {
  const format = new Intl.DateTimeFormat(textsOf(language).locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short' // dateStyle and timeStyle would refuse it
  });
  return format.format(new Date(iso));
}
