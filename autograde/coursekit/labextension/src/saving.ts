/**
 * Validate and Submit act on what the student sees: their unsaved edits saved first.
 *
 * nbgrader validates and submits the files on disk. Its notebook toolbar's Validate saves the notebook first; its
 * Assignment List's Validate and Submit do not, so an edit typed and not saved was left out without a word (a fix
 * typed, the old bug graded). Before either request leaves the page (./requests.ts), every document open in Lab
 * under it (Validate: its notebook; Submit: the assignment's folder, where nbgrader fetched it) with unsaved changes
 * is saved, and a notification says so. When a save fails, the request is not sent, and the notification says why:
 * nothing stale is validated or submitted.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';

import { beforeRequests } from './requests';
import { Language, textsOf } from './texts';
import { requestedPath } from './validation';

const VALIDATE = /\/assignments\/validate(\?|$)/;
const SUBMIT = /\/assignments\/submit(\?|$)/;

interface IContext {
  readonly path: string;
  readonly model: { readonly dirty: boolean };
  save(): Promise<void>;
}

/** The assignment a Submit request names (its JSON body's `assignment_id`); null when it names none. */
export function submittedAssignment(init: RequestInit | undefined): string | null {
  try {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    return typeof body?.assignment_id === 'string' && body.assignment_id ? body.assignment_id : null;
  } catch {
    return null;
  }
}

export class SaveFirst {
  constructor(private readonly app: JupyterFrontEnd, private readonly language: () => Language) {}

  /** Save before nbgrader's Validate (one notebook) and Submit (an assignment's folder) from now on. */
  watch(): void {
    beforeRequests(VALIDATE, (url, init) => this.save(path => path === requestedPath(url, init), false));
    beforeRequests(SUBMIT, async (url, init) => {
      const assignment = submittedAssignment(init);
      await this.save(path => assignment !== null && path.startsWith(`${assignment}/`), true);
    });
  }

  /** The open documents whose path `chosen` accepts and that have unsaved changes, saved; told in a notification. */
  async save(chosen: (path: string) => boolean, submitting: boolean): Promise<void> {
    const unsaved = this.openDocuments().filter(context => chosen(context.path) && context.model.dirty);
    if (unsaved.length === 0) {
      return;
    }
    const texts = textsOf(this.language());
    const names = unsaved.map(context => context.path.split('/').pop()).join(', ');
    try {
      await Promise.all(unsaved.map(context => context.save()));
    } catch (error) {
      const message = (error as { message?: unknown } | null)?.message;
      const why = typeof message === 'string' ? message : String(error);
      await this.tell(texts.notSaved(names, submitting, why), 'error');
      throw new Error(texts.notSaved(names, submitting, why));
    }
    await this.tell(texts.savedFirst(names, submitting), 'info');
  }

  private openDocuments(): IContext[] {
    const found: IContext[] = [];
    for (const widget of this.app.shell.widgets('main')) {
      const context = (widget as unknown as { context?: IContext }).context;
      if (context !== undefined && typeof context.path === 'string' && context.model !== undefined) {
        found.push(context);
      }
    }
    return found;
  }

  private async tell(message: string, type: string): Promise<void> {
    await this.app.commands.execute('apputils:notify', { message, type, options: { autoClose: 8000 } });
  }
}
