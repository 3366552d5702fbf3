/**
 * "Request a regrade" on a feedback page: a button in the HTML viewer's toolbar of each page of
 * `<assignment>/feedback/<timestamp>/`, and the dialog it opens.
 *
 * The student's own server says everything the dialog shows, in the submission's language
 * (coursekit/plugins/regrade_requests.py, GET `attention-feedback/regrade?path=…`): the submission's graded cells
 * by name, whether requests are open and until when, the longest reason, the requests already filed with the
 * course's answer to each, and every word. Filing is one POST; a refusal comes back as one sentence, shown in the
 * dialog and as a notification. Everything the server sends is shown as text (`textContent`), never as HTML.
 *
 * The dialog is the browser's own `<dialog>` (modal, Esc closes it, focus stays inside), so the extension needs no
 * package beyond those it already uses; the button is a plain button appended to the viewer's toolbar.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { ServerConnection } from '@jupyterlab/services';

export const REGRADE_URL = 'attention-feedback/regrade';
const VIEWER = 'HTML Viewer';
const FEEDBACK_PAGE = /^[^/]+\/feedback\/[^/]+\/[^/]+\.html$/;
const MARK = 'attention-regrade'; // class prefix of everything this module draws

interface IQuestion {
  readonly id: string;
  readonly name: string;
}

interface IFiled {
  readonly name: string;
  readonly reason: string;
  readonly state: string;
  readonly comment: string;
}

/** What the student's server answers for one feedback page. */
interface IForm {
  readonly open: boolean;
  readonly closed: string;
  readonly most: number;
  readonly questions: IQuestion[];
  readonly requests: IFiled[];
  readonly words: { readonly [key: string]: string };
}

/** A document widget, as far as this module needs one. */
interface IViewer {
  readonly context: { readonly path: string };
  readonly toolbar?: { readonly node: HTMLElement };
  readonly disposed?: { connect(slot: () => void): void };
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string) {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

export class RegradeButtons {
  constructor(private readonly app: JupyterFrontEnd) {}

  /** A button on every feedback page opened from now on, and on those open already. */
  watch(): void {
    const factory = this.app.docRegistry?.getWidgetFactory(VIEWER);
    factory?.widgetCreated.connect((_, widget) => void this.add(widget as unknown as IViewer));
    for (const widget of this.app.shell.widgets('main')) {
      void this.add(widget as unknown as IViewer);
    }
  }

  private async ask(path: string, init: RequestInit = { method: 'GET' }): Promise<{ ok: boolean; answer: any }> {
    const settings = this.app.serviceManager.serverSettings;
    const query = init.method === 'GET' ? `?path=${encodeURIComponent(path)}` : '';
    const response = await ServerConnection.makeRequest(settings.baseUrl + REGRADE_URL + query, init, settings);
    return { ok: response.ok, answer: await response.json().catch(() => ({})) };
  }

  /** The toolbar button of `widget`, when it shows a feedback page of a submission this server knows. */
  async add(widget: IViewer): Promise<void> {
    const path = widget?.context?.path;
    const toolbar = widget?.toolbar?.node;
    if (typeof path !== 'string' || !FEEDBACK_PAGE.test(path) || !toolbar || toolbar.querySelector(`.${MARK}-button`)) {
      return;
    }
    const { ok, answer } = await this.ask(path);
    if (!ok) {
      return; // not a submission of this student's, or no course here: no button
    }
    const form = answer as IForm;
    const button = element('button', `${MARK}-button jp-Button jp-mod-minimal`, form.words.button);
    button.type = 'button';
    button.title = form.words.button;
    button.addEventListener('click', () => void this.open(path));
    toolbar.appendChild(button);
  }

  /** The dialog for the feedback page `path`, as the server says it now. */
  async open(path: string): Promise<void> {
    const { ok, answer } = await this.ask(path);
    if (!ok) {
      await this.notify(answer?.message ?? String(answer), 'error');
      return;
    }
    const form = answer as IForm;
    const dialog = element('dialog', MARK);
    dialog.setAttribute('aria-labelledby', `${MARK}-title`);
    const title = dialog.appendChild(element('h2', `${MARK}-title`, form.words.title));
    title.id = `${MARK}-title`;
    const said = element('p', `${MARK}-said`);
    said.setAttribute('role', 'alert');
    if (form.open) {
      this.fields(dialog, form, path, said);
    } else {
      dialog.appendChild(element('p', `${MARK}-closed`, form.closed));
    }
    dialog.appendChild(said);
    this.filed(dialog, form);
    const close = dialog.appendChild(element('button', `${MARK}-cancel jp-Button`, form.words.cancel));
    close.type = 'button';
    close.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => dialog.remove());
    document.body.appendChild(dialog);
    dialog.showModal();
  }

  private fields(dialog: HTMLElement, form: IForm, path: string, said: HTMLElement): void {
    const which = dialog.appendChild(element('label', `${MARK}-label`, form.words.question));
    const select = which.appendChild(element('select', `${MARK}-question`));
    for (const question of form.questions) {
      const option = select.appendChild(element('option', '', question.name));
      option.value = question.id;
    }
    const why = dialog.appendChild(element('label', `${MARK}-label`, form.words.reason));
    const reason = why.appendChild(element('textarea', `${MARK}-reason`));
    reason.maxLength = form.most;
    reason.rows = 6;
    reason.placeholder = form.words.reason_hint;
    const count = dialog.appendChild(element('p', `${MARK}-count`, `0 / ${form.most}`));
    reason.addEventListener('input', () => (count.textContent = `${reason.value.length} / ${form.most}`));
    dialog.appendChild(element('p', `${MARK}-until`, form.words.until));
    const send = dialog.appendChild(element('button', `${MARK}-send jp-Button jp-mod-accept`, form.words.send));
    send.type = 'button';
    send.addEventListener('click', async () => {
      send.disabled = true;
      const body = JSON.stringify({ path, question: select.value, reason: reason.value });
      const { ok, answer } = await this.ask(path, { method: 'POST', body });
      const message = String(answer?.message ?? '');
      said.textContent = message;
      await this.notify(message, ok ? 'success' : 'error');
      if (ok) {
        (dialog as HTMLDialogElement).close();
      } else {
        send.disabled = false;
      }
    });
  }

  private filed(dialog: HTMLElement, form: IForm): void {
    if (form.requests.length === 0) {
      return;
    }
    dialog.appendChild(element('h3', `${MARK}-yours`, form.words.yours));
    const list = dialog.appendChild(element('ul', `${MARK}-requests`));
    for (const request of form.requests) {
      const item = list.appendChild(element('li', `${MARK}-request ${MARK}-${request.state}`));
      item.appendChild(element('strong', '', `${request.name}: ${form.words[`state_${request.state}`] ?? request.state}`));
      item.appendChild(element('p', `${MARK}-reason-filed`, request.reason));
      if (request.comment) {
        item.appendChild(element('p', `${MARK}-comment`, `${form.words.comment}: ${request.comment}`));
      }
    }
  }

  private notify(message: string, type: string): Promise<unknown> {
    return this.app.commands.execute('apputils:notify', { message, type, options: { autoClose: 8000 } });
  }
}
