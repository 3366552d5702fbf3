/**
 * The students' Lab extension: feedback finds the student, and one click opens it as it is on disk now.
 *
 * - `open-on-view`: nbgrader turns "(view feedback)" in the Assignment List into
 *   `filebrowser:go-to-path` on the feedback folder (<assignment>/feedback/<timestamp>), which only
 *   moves the file browser: the student then had to find the HTML file, open it and press "Trust
 *   HTML". This plugin watches the command registry for that command on such a folder and opens the
 *   folder's pages in Lab's HTML viewer (./pages.ts: an open tab is read from disk again first).
 * - `notify`: after Submit, a notification follows the submission, told by the student's own server,
 *   until its feedback is out (fetched, one click to open it, by the same code; a tab already open on that
 *   assignment's feedback and the Assignment List brought up to date first) or it says why automatic feedback
 *   will not come (./notices.ts), in the submission's language (./texts.ts); nbgrader's Assignment List said in
 *   the student's language (./assignments.ts).
 * - `validation-words`: nbgrader's Validate dialog said in the validated notebook's language, each failing
 *   cell shown by its chapter name (./validation.ts).
 * - `regrade`: a "request a regrade" button on each feedback page, filed by the student's own server (./regrades.ts).
 * - in `notify` too, since it knows the student's language: the Assignment List's Validate and Submit save the
 *   notebooks' unsaved edits first (./saving.ts).
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IDocumentManager } from '@jupyterlab/docmanager';

import { AssignmentList } from './assignments';
import { FeedbackNotices, IStatus, NAME, OPEN_COMMAND, OPEN_LABEL, SCHEMA_ID } from './notices';
import { showFeedback } from './pages';
import { RegradeButtons } from './regrades';
import { SaveFirst } from './saving';
import { ValidationWords } from './validation';

const FEEDBACK_FOLDER = /(^|\/)feedback\/[^/]+\/?$/;

interface IExecuted {
  readonly id: string;
  readonly args: { readonly [key: string]: unknown };
}

/** The feedback folder an executed command moved the file browser to, without a trailing slash; else null. */
function feedbackFolder(executed: IExecuted): string | null {
  const path = executed.args?.path;
  if (executed.id !== 'filebrowser:go-to-path' || typeof path !== 'string' || !FEEDBACK_FOLDER.test(path)) {
    return null;
  }
  return path.replace(/\/$/, '');
}

const openOnView: JupyterFrontEndPlugin<void> = {
  id: `${NAME}:open-on-view`,
  description: "Opens the feedback page, as it is now, when a student clicks nbgrader's (view feedback).",
  autoStart: true,
  requires: [IDocumentManager],
  activate: (app: JupyterFrontEnd, documents: IDocumentManager) => {
    app.commands.commandExecuted.connect((_, executed) => {
      const folder = feedbackFolder(executed);
      if (folder === null) {
        return;
      }
      showFeedback(app, documents, folder).catch(error => {
        console.error(`${NAME}: could not open the feedback in ${folder}`, error);
      });
    });
  }
};

const notify: JupyterFrontEndPlugin<void> = {
  id: `${NAME}:notify`,
  description:
    'Tells the student, in a Lab notification, that their feedback is out (one click opens it) or why it will not come.',
  autoStart: true,
  requires: [IDocumentManager],
  activate: (app: JupyterFrontEnd, documents: IDocumentManager) => {
    const list = new AssignmentList(app);
    list.watch();
    new SaveFirst(app, () => list.spoken).watch();
    const notices = new FeedbackNotices(app, documents, list);
    app.commands.addCommand(OPEN_COMMAND, { label: OPEN_LABEL, execute: args => notices.open(args) });
    app.serviceManager.events.stream.connect((_, event) => {
      if (event.schema_id === SCHEMA_ID) {
        void notices.take(event as unknown as IStatus);
      }
    });
    notices.catchUp().catch(error => console.error(`${NAME}: could not ask for the feedback status`, error));
  }
};

const validationWords: JupyterFrontEndPlugin<void> = {
  id: `${NAME}:validation-words`,
  description: "Says nbgrader's Validate dialog in the validated notebook's language, each failing cell by its name.",
  autoStart: true,
  activate: (app: JupyterFrontEnd) => {
    const words = new ValidationWords(app);
    words.watchRequests();
    if (typeof MutationObserver !== 'undefined' && typeof document !== 'undefined' && document.body) {
      words.watchDialogs(document);
    }
  }
};

const regrade: JupyterFrontEndPlugin<void> = {
  id: `${NAME}:regrade`,
  description: 'A button on each feedback page to ask for a regrade of one written answer or test cell, with a reason.',
  autoStart: true,
  activate: (app: JupyterFrontEnd) => {
    Promise.resolve(app.restored)
      .then(() => new RegradeButtons(app).watch())
      .catch(error => console.error(`${NAME}: no regrade button on feedback pages`, error));
  }
};

export default [openOnView, notify, validationWords, regrade];
