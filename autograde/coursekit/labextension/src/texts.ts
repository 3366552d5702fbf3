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
  /** The frame of Validate's results, in place of nbgrader's English (NBGRADER_WORDS). */
  validation: IValidationTexts;
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
    validation: {
      title: '验证结果',
      failed: '下面这个单元格没有通过：',
      passed: '下面这个单元格通过了：',
      changed: '下面这个单元格的内容被改动过，它本不该被改动！',
      success: '全部通过！你的笔记本通过了所有检查。',
      error: '运行验证时出错：',
      partial: '部分得分：这个单元格的检查有的通过、有的没有通过。'
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
    validation: NBGRADER_WORDS
  }
};

/** The table of `language` ('zh' or 'en'); Chinese for anything else. */
export function textsOf(language: unknown): ITexts {
  return language === 'en' || language === 'zh' ? TEXTS[language] : TEXTS[DEFAULT_LANGUAGE];
}
