/**
 * Everything the extension says to a student, in each edition's language: one table, keyed by language.
 *
 * The language is the submission's (its notebook's `metadata.edition.language`, read by the student's
 * server: coursekit/plugins/feedback_watch.py), or the validated notebook's (validation.ts); Chinese, the
 * course's own, when it says nothing else.
 */

export type Language = 'zh' | 'en';

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

export const TEXTS: { readonly [language in Language]: ITexts } = {
  zh: {
    received: at => `已收到你 ${at} 的提交，正在评分…`,
    receivedByInstructor: at => `已收到你 ${at} 的提交：这份作业的反馈由老师批改后发布`,
    ready: (score, maxScore, pending) =>
      `反馈已就绪：${score} / ${maxScore} 分` + (pending > 0 ? `，${pending} 道书面题待批改` : ''),
    readyWithoutScore: '反馈已就绪',
    notGraded: '反馈已就绪：这次提交没有被自动评分，打开看原因和该怎么做',
    cooldown: until => `这次提交的反馈将在 ${until} 自动发布（两次自动反馈之间有冷却时间）`,
    attempts: limit => `自动反馈的 ${limit} 次机会已用完：这次提交的反馈由老师批改后发布`,
    deadline: '已过截止时间：这次提交不再自动反馈，由老师批改后发布',
    paused: '老师暂停了自动评分：恢复后会评分并发布反馈，到时这里会告诉你',
    open: '查看反馈',
    savedFirst: (names, submitting) => `${names} 里有没保存的修改：已先保存，再${submitting ? '提交' : '验证'}。`,
    notSaved: (names, submitting, error) =>
      `${names} 里有没保存的修改，但保存失败（${error}）：这次没有${submitting ? '提交' : '验证'}。保存之后再试一次。`,
    due: (when, until) => `截止 ${when}` + (until ? `；你的延期：到 ${until}` : ''),
    locale: 'zh-CN',
    validation: {
      title: '验证结果',
      failed: '下面这个单元格没有通过：',
      passed: '下面这个单元格通过了：',
      changed: '下面这个单元格的内容被改动过，它本不该被改动！',
      success: '全部通过！你的笔记本通过了所有检查。',
      error: '运行验证时出错：',
      partial: '部分得分：这个单元格的检查有的通过、有的没有通过。'
    },
    assignmentList: {
      title: '作业',
      course: '本课程已发布、已下载和已提交的作业：',
      released: '已发布的作业',
      downloaded: '已下载的作业',
      submitted: '已提交的作业',
      noReleased: '没有可以获取的作业。',
      noDownloaded: '还没有下载的作业。',
      noSubmitted: '还没有提交的作业。',
      loading: '正在加载，请稍候…',
      fetch: '获取',
      fetching: '正在获取…',
      submit: '提交',
      submitting: '正在提交…',
      fetchFeedback: '获取反馈',
      fetchingFeedback: '正在获取反馈…',
      viewFeedback: '（查看反馈）',
      feedbackToFetch: '（有反馈可以获取）',
      validate: '验证',
      validating: '正在验证…',
      noCourses: '没有找到课程。'
    }
  },
  en: {
    received: at => `Your submission of ${at} is in: grading…`,
    receivedByInstructor: at => `Your submission of ${at} is in: your instructor will release its feedback after marking`,
    ready: (score, maxScore, pending) =>
      `Feedback ready: ${score} / ${maxScore} points` +
      (pending > 0 ? `, ${pending} written ${pending === 1 ? 'answer' : 'answers'} still to be marked` : ''),
    readyWithoutScore: 'Feedback ready',
    notGraded: 'Feedback ready: this submission could not be graded automatically; open it to see why and what to do',
    cooldown: until => `Feedback on this submission will be released at ${until} (automatic feedback has a cooldown)`,
    attempts: limit =>
      `All ${limit} automatic feedbacks are used: your instructor will release this submission's feedback after marking`,
    deadline: "The deadline has passed: your instructor will release this submission's feedback after marking",
    paused: 'Your instructor has paused automatic grading: you will be told here once your feedback is out',
    open: 'Open feedback',
    savedFirst: (names, submitting) =>
      `${names} had unsaved changes: saved them first, then ${submitting ? 'submitted' : 'validated'}.`,
    notSaved: (names, submitting, error) =>
      `${names} has unsaved changes that could not be saved (${error}): nothing was ` +
      `${submitting ? 'submitted' : 'validated'}. Save, then try again.`,
    due: (when, until) => `Due ${when}` + (until ? `; your extension: until ${until}` : ''),
    locale: 'en',
    validation: NBGRADER_WORDS,
    assignmentList: NBGRADER_LIST_WORDS
  }
};

export function isLanguage(value: unknown): value is Language {
  return value === 'zh' || value === 'en';
}

/** The table of `language` ('zh' or 'en'); Chinese for anything else. */
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
