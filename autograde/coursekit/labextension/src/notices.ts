/**
 * One Lab notification per assignment that follows the student's newest submission: "grading…", then
 * "feedback ready: 12 / 20" with a button that opens the page (fetched already), or why automatic
 * feedback will not come (cooldown with the time it ends, attempts used, deadline passed, service paused).
 *
 * The statuses come from the student's own server (coursekit/plugins/feedback_watch.py), which
 * reads what the grading service and the course's release_feedback publish (coursekit/service/
 * student_status.py): as Jupyter Server events while Lab is open, and once, by one request, when it
 * opens. Lab sends nothing else while it waits. What the student has been told is remembered by their own
 * server (`told`, answered with the statuses; each notice shown is sent back to it), so a status already shown
 * is not shown again when Lab opens anew, whichever browser they log in from.
 *
 * Released feedback is fetched with nbgrader's own Fetch Feedback request (what the Assignment List
 * sends) before the student is told, so the button opens the page on disk, through the same code as
 * "(view feedback)" (./pages.ts: an open tab is read again, never stale). Before the student is told, too,
 * a tab open on that assignment's feedback shows the new page (./pages.ts: read again, or replaced by a newer
 * submission's) and the Assignment List lists again (./assignments.ts), its row offering "(view feedback)".
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IDocumentManager } from '@jupyterlab/docmanager';
import { ServerConnection } from '@jupyterlab/services';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';

import { AssignmentList, STATUS_URL } from './assignments';
import { showFeedback, updateOpenFeedback } from './pages';
import { ITexts, TEXTS, DEFAULT_LANGUAGE, textsOf } from './texts';

export const NAME = 'attention-feedback';
export const SCHEMA_ID = 'https://attention-course.example/events/feedback-status';
export const OPEN_COMMAND = `${NAME}:open-feedback`;
const SUBMITTED = 'submitted';
const QUEUED = 'queued';
const WAITING = 'waiting';
const RELEASED = 'released';

/** One submission's status, as coursekit.service.student_status.FeedbackStatus writes it, with course and language. */
export interface IStatus {
  readonly assignment: string;
  readonly timestamp: string;
  readonly state: string;
  readonly reason?: string;
  readonly until?: number | null;
  readonly limit?: number;
  readonly graded?: boolean;
  readonly score?: number | null;
  readonly max_score?: number | null;
  readonly pending?: number;
  readonly published?: number;
  readonly course_id: string;
  readonly language?: string;
  readonly automatic?: boolean; // the grading service grades this assignment (no status yet: a grading is coming)
}

interface INotice {
  readonly message: string;
  readonly type: string;
  readonly opens: boolean; // with the button that opens the feedback page
}

interface IShown {
  readonly timestamp: string;
  readonly id: string;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** The time of day, in the student's time zone, as 15:30:01. */
function clock(date: Date): string {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** nbgrader's timestamp ("2026-12-01 10:00:01.123456 UTC") as the student's time of day. */
function submittedAt(timestamp: string): string {
  const parts = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)/.exec(timestamp);
  if (parts === null) {
    return timestamp;
  }
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number);
  return clock(new Date(Date.UTC(year, month - 1, day, hour, minute, second)));
}

/** Points as the feedback page writes them ("%g" of two decimals): 12, 14.25. */
function points(value: number): string {
  return String(Number(value.toFixed(2)));
}

function waitingNotice(status: IStatus, texts: ITexts): INotice | null {
  switch (status.reason) {
    case 'cooldown':
      return { message: texts.cooldown(clock(new Date((status.until ?? 0) * 1000))), type: 'info', opens: false };
    case 'attempts':
      return { message: texts.attempts(status.limit ?? 0), type: 'warning', opens: false };
    case 'deadline':
      return { message: texts.deadline, type: 'warning', opens: false };
    case 'paused':
      return { message: texts.paused, type: 'info', opens: false };
  }
  return null;
}

function releasedNotice(status: IStatus, texts: ITexts): INotice {
  if (status.graded === false) {
    return { message: texts.notGraded, type: 'warning', opens: true };
  }
  if (typeof status.score !== 'number' || typeof status.max_score !== 'number') {
    return { message: texts.readyWithoutScore, type: 'success', opens: true };
  }
  const message = texts.ready(points(status.score), points(status.max_score), status.pending ?? 0);
  return { message, type: 'success', opens: true };
}

/** What the notification says about `status`, in its language; null for a state this extension does not know. */
export function noticeOf(status: IStatus): INotice | null {
  const texts = textsOf(status.language);
  if (status.state === SUBMITTED && status.automatic === false) {
    return { message: texts.receivedByInstructor(submittedAt(status.timestamp)), type: 'info', opens: false };
  }
  if (status.state === SUBMITTED || status.state === QUEUED) {
    return { message: texts.received(submittedAt(status.timestamp)), type: 'in-progress', opens: false };
  }
  if (status.state === WAITING) {
    return waitingNotice(status, texts);
  }
  return status.state === RELEASED ? releasedNotice(status, texts) : null;
}

/** What makes a status new: the same submission, state and publication is never shown twice. */
function keyOf(status: IStatus): string {
  return [status.timestamp, status.state, status.reason ?? '', status.published ?? 0].join('|');
}

/** The feedback folder of that submission in nbgrader's listing (what "(view feedback)" opens); null if none. */
function folderIn(answer: any, status: IStatus): string | null {
  const assignment = (answer?.success ? answer.value : []).find(
    (listed: any) => listed.assignment_id === status.assignment && Array.isArray(listed.submissions)
  );
  const submission = assignment?.submissions.find((listed: any) => listed.timestamp === status.timestamp);
  return typeof submission?.local_feedback_path === 'string' ? submission.local_feedback_path : null;
}

/**
 * What the student has been told, per assignment (the key of the status last shown): kept by their own server, which
 * answers it with the statuses when Lab opens (`told`); each notice shown is sent to it (a POST to STATUS_URL).
 */
class Told {
  private readonly told = new Map<string, string>();

  constructor(private readonly app: JupyterFrontEnd) {}

  learn(told: unknown): void {
    for (const [assignment, key] of Object.entries(typeof told === 'object' && told !== null ? told : {})) {
      if (typeof key === 'string' && !this.told.has(assignment)) {
        this.told.set(assignment, key);
      }
    }
  }

  has(assignment: string, key: string): boolean {
    return this.told.get(assignment) === key;
  }

  async remember(assignment: string, key: string): Promise<void> {
    this.told.set(assignment, key);
    const settings = this.app.serviceManager.serverSettings;
    const body = JSON.stringify({ told: { [assignment]: key } });
    await ServerConnection.makeRequest(settings.baseUrl + STATUS_URL, { method: 'POST', body }, settings);
  }
}

export class FeedbackNotices {
  private readonly shown = new Map<string, IShown>(); // assignment -> its notification
  private readonly folders = new Map<string, string>(); // "assignment|timestamp" -> the fetched feedback folder
  private readonly told: Told;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly app: JupyterFrontEnd,
    private readonly documents: IDocumentManager,
    private readonly list: AssignmentList
  ) {
    this.told = new Told(app);
  }

  /** Shows `status`, after every status taken before it (the order the server saw them in). */
  take(status: IStatus): Promise<void> {
    this.queue = this.queue
      .then(() => this.show(status))
      .catch(error => console.error(`${NAME}: could not tell the student about ${status.assignment}`, error));
    return this.queue;
  }

  /** The newest submission's status of each assignment, and the student's language, asked once when Lab opens. */
  async catchUp(): Promise<void> {
    const settings = this.app.serviceManager.serverSettings;
    const response = await ServerConnection.makeRequest(settings.baseUrl + STATUS_URL, { method: 'GET' }, settings);
    const answer = await response.json();
    this.told.learn(answer?.told);
    this.list.setDates(answer?.dates);
    this.list.setLanguage(answer?.language);
    for (const status of (answer?.statuses ?? []) as IStatus[]) {
      await this.take(status);
    }
  }

  /** The button's command: the submission's feedback folder (fetched now if it was not) opened as it is. */
  async open(args: ReadonlyPartialJSONObject): Promise<void> {
    const status = args as unknown as IStatus;
    const folder = this.folders.get(`${status.assignment}|${status.timestamp}`) ?? (await this.fetch(status));
    if (folder === null) {
      throw new Error(`no fetched feedback for ${status.assignment} submitted ${status.timestamp}`);
    }
    await showFeedback(this.app, this.documents, folder);
  }

  private async show(status: IStatus): Promise<void> {
    const notice = noticeOf(status);
    if (notice === null || !this.isNews(status)) {
      return;
    }
    if (status.state === RELEASED) {
      await this.arrived(status); // the page is on disk, and shown where Lab shows its feedback, before the student is told
    }
    await this.notify(status, notice);
    await this.told.remember(status.assignment, keyOf(status));
  }

  private isNews(status: IStatus): boolean {
    const shown = this.shown.get(status.assignment);
    // about an older submission than the one shown: only its release (marked since) is news
    if (shown !== undefined && status.timestamp < shown.timestamp && status.state !== RELEASED) {
      return false;
    }
    return !this.told.has(status.assignment, keyOf(status));
  }

  /** Released feedback fetched; the tabs open on the assignment's feedback and the Assignment List brought up to date. */
  private async arrived(status: IStatus): Promise<void> {
    const folder = await this.fetch(status);
    if (folder !== null) {
      await updateOpenFeedback(this.app, folder);
    }
    this.list.refresh();
  }

  /** nbgrader's own Fetch Feedback, as the Assignment List sends it; the folder of this submission's pages. */
  private async fetch(status: IStatus): Promise<string | null> {
    const settings = this.app.serviceManager.serverSettings;
    const body = JSON.stringify({ course_id: status.course_id, assignment_id: status.assignment });
    const response = await ServerConnection.makeRequest(
      settings.baseUrl + 'assignments/fetch_feedback', { method: 'POST', body }, settings);
    const folder = folderIn(await response.json(), status);
    if (folder !== null) {
      this.folders.set(`${status.assignment}|${status.timestamp}`, folder);
    }
    return folder;
  }

  /** The assignment's notification updated in place, or a new one if there is none (or the student closed it). */
  private async notify(status: IStatus, notice: INotice): Promise<void> {
    const texts = textsOf(status.language);
    const submission = { course_id: status.course_id, assignment: status.assignment, timestamp: status.timestamp };
    const button = { label: texts.open, commandId: OPEN_COMMAND, args: submission, displayType: 'accent' };
    const actions = notice.opens ? [button] : [];
    const { message, type } = notice;
    const shown = this.shown.get(status.assignment);
    // Lab's update command takes the options flat, its notify command under `options`
    const updated = shown !== undefined && (await this.app.commands.execute(
      'apputils:update-notification', { id: shown.id, message, type, autoClose: false, actions }));
    const id = updated && shown !== undefined ? shown.id : await this.app.commands.execute(
      'apputils:notify', { message, type, options: { autoClose: false, actions } });
    this.shown.set(status.assignment, { timestamp: status.timestamp, id: String(id) });
  }
}

/** The label of the button's command wherever Lab lists commands. */
export const OPEN_LABEL = TEXTS[DEFAULT_LANGUAGE].open;
