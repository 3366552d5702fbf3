/**
 * nbgrader's Validate dialog in the validated notebook's language.
 *
 * nbgrader's Lab extension shows Validate's results (the notebook toolbar's button and the Assignment
 * List's) in a dialog it words in English — "Validation Results", "The following cell failed:" and the
 * cell's source — around what the course's server says in the notebook's language
 * (coursekit/plugins/validation.py). Neither nbgrader nor Lab offers a hook into that dialog, so this
 * module does two things, in this one place:
 *
 * - it watches nbgrader's request to `assignments/validate` (./requests.ts) and notes, before nbgrader
 *   reads the answer, the notebook's language (the answer's `language`; else the notebook's own
 *   `metadata.edition.language`, read through Lab's contents API), each failing cell's chapter name
 *   (the answer's `failed[i].name`) and the reminder of the written questions not answered yet (the
 *   answer's `unanswered`: not a failed cell, so nbgrader never shows it);
 * - when nbgrader's dialog (`#validation-message`) appears, it says nbgrader's sentences
 *   (NBGRADER_WORDS, which tests/unit/test_labextension.py finds in nbgrader's installed build and
 *   server) in that language, shows each failing cell by its name instead of its source and adds the
 *   reminder below nbgrader's verdict.
 *
 * What nbgrader decides about the code (passed or failed, which cells) is never changed, nor the request.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';

import { watchAnswers } from './requests';
import { DEFAULT_LANGUAGE, isLanguage, Language, NBGRADER_WORDS, textsOf } from './texts';
import { sayWords, wordsFor } from './words';

const VALIDATE = /\/assignments\/validate(\?|$)/;
const REMINDER = 'attention-feedback-reminder'; // the class of the reminder's paragraph

/**
 * What the latest Validate answered: the notebook's language (null: unknown), the failing cells' names and the
 * reminder of the written questions not answered yet ('' when all are).
 */
export interface IValidated {
  readonly language: Language | null;
  readonly names: readonly string[];
  readonly reminder: string;
}

const NOTHING: IValidated = { language: null, names: [], reminder: '' };

/** The notebook a Validate request is about: its URL's `path` (the toolbar's), else its JSON body's (the list's). */
export function requestedPath(url: string, init: RequestInit | undefined): string | null {
  const fromUrl = new URL(url, 'http://lab.invalid/').searchParams.get('path');
  if (fromUrl) {
    return fromUrl;
  }
  try {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    return typeof body?.path === 'string' ? body.path : null;
  } catch {
    return null;
  }
}

/** The sentences of nbgrader's dialog in `language`: nbgrader's English → the language's. */
export function validationWords(language: Language): Map<string, string> {
  return wordsFor(NBGRADER_WORDS, textsOf(language).validation);
}

/** The failing cells' names and the reminder in Validate's answer (`value`: its results). */
function namesAndReminder(value: any): Pick<IValidated, 'names' | 'reminder'> {
  const failed: unknown[] = Array.isArray(value?.failed) ? value.failed : [];
  const names = failed.map(entry => {
    const name = (entry as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? name : '';
  });
  const reminder = value?.unanswered?.text;
  return { names, reminder: typeof reminder === 'string' ? reminder : '' };
}

/** Each failure nbgrader lists (a paragraph, then the cell's source and the error, each in a .jp-RenderedText): the
 * source shown as the cell's chapter name. */
function nameFailingCells(message: Element, names: readonly string[]): void {
  const rendered = Array.from(message.children).filter(child => child.classList.contains('jp-RenderedText'));
  rendered.forEach((block, index) => {
    const name = index % 2 === 0 ? names[index / 2] : '';
    const source = block.querySelector('pre');
    if (name && source !== null) {
      source.textContent = name;
      source.classList.add('attention-feedback-cell-name');
    }
  });
}

export class ValidationWords {
  private validated: IValidated = NOTHING;

  constructor(private readonly app: JupyterFrontEnd) {}

  get last(): IValidated {
    return this.validated;
  }

  /** Note every Validate answer (nbgrader's request, through Lab's shared makeRequest) before nbgrader reads it. */
  watchRequests(): void {
    watchAnswers(VALIDATE, (url, init, response) => this.note(url, init, response));
  }

  async note(url: string, init: RequestInit | undefined, response: Response): Promise<void> {
    this.validated = NOTHING;
    try {
      const answer = await response.json();
      const value = typeof answer?.value === 'string' ? JSON.parse(answer.value) : answer?.value ?? {};
      const language = isLanguage(value?.language) ? value.language : await this.languageOf(requestedPath(url, init));
      this.validated = { language, ...namesAndReminder(value) };
    } catch (error) {
      console.warn('attention-feedback: could not read what Validate answered', error);
    }
  }

  /** A notebook's edition language from its metadata (Chinese when it names none); null when it cannot be read. */
  private async languageOf(path: string | null): Promise<Language | null> {
    if (path === null) {
      return null;
    }
    const model = await this.app.serviceManager.contents.get(path, { type: 'notebook', content: true });
    const edition = (model.content?.metadata as { edition?: { language?: unknown } } | undefined)?.edition;
    return isLanguage(edition?.language) ? edition.language : DEFAULT_LANGUAGE;
  }

  /** Say nbgrader's dialog (`dialog`: its node) in the noted language; each failing cell by its name; the reminder. */
  frame(dialog: Element): void {
    const message = dialog.querySelector('#validation-message');
    const { language, names, reminder } = this.validated;
    if (message === null || language === null) {
      return;
    }
    const words = validationWords(language);
    sayWords(dialog, words);
    // Lab renders the dialog's title with React once the dialog is on the page: say it (and anything else) when it is
    new MutationObserver(() => sayWords(dialog, words)).observe(dialog, { childList: true, subtree: true });
    if (message.classList.contains('validation-failed')) {
      nameFailingCells(message, names);
    }
    if (reminder) {
      const paragraph = message.ownerDocument.createElement('p');
      paragraph.className = REMINDER;
      paragraph.style.whiteSpace = 'pre-line';
      paragraph.textContent = reminder;
      message.append(paragraph);
    }
  }

  /** Frame every Validate dialog Lab attaches to the page from now on. */
  watchDialogs(document: Document): void {
    new MutationObserver(records => {
      for (const record of records) {
        record.addedNodes.forEach(node => {
          if (node instanceof Element && node.querySelector('#validation-message') !== null) {
            this.frame(node);
          }
        });
      }
    }).observe(document.body, { childList: true });
  }
}
