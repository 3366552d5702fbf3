/**
 * nbgrader's Assignment List in the student's language, brought up to date when their feedback arrives.
 *
 * nbgrader's list (its Lab extension's panel, `#nbgrader-assignment-list`) writes its words in English and has no
 * translation domain: JupyterLab's language packs translate only what an extension asks its translator for
 * (`ITranslator`), and nbgrader asks for nothing, so no language pack can reach them. This module says them in the
 * student's language from the course's own table (texts.ts: NBGRADER_LIST_WORDS and each language's
 * `assignmentList`), as nbgrader writes and rewrites them: its rows are built again at every listing, its buttons
 * relabelled while they work ("Fetching..."). The student's language is the edition they fetched last, as their
 * own server says (coursekit/plugins/feedback_watch.py); Chinese, the course's own, before they fetch any.
 *
 * When feedback arrives (fetched by ./notices.ts, not by the list's own button), the list does not know:
 * `refresh` presses its own refresh button, so that the row shows "(view feedback)" at once.
 *
 * Each released and fetched assignment's row also says when it is due, and until when this student's own extension
 * runs, in their language and their browser's time zone: their server answers both with their language
 * (coursekit.service.student_status.dates_for), asked again each time the list opens.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { ServerConnection } from '@jupyterlab/services';

import { watchAnswers } from './requests';
import { dateText, DEFAULT_LANGUAGE, isLanguage, Language, NBGRADER_LIST_WORDS, textsOf } from './texts';
import { sayWords, wordsFor } from './words';

export const STATUS_URL = 'attention-feedback/status';
const PANEL = 'nbgrader-assignment-list'; // the id nbgrader gives its panel
const OPEN_LIST = 'nbgrader:open-assignment-list';
const REFRESH = `#${PANEL} #refresh_assignments_list`;
const FETCHED = /\/assignments\/fetch(\?|$)/; // nbgrader's Fetch (not Fetch Feedback)
const ROWS = '#released_assignments_list .list_item, #fetched_assignments_list .list_item';
const DUE = 'attention-due'; // the class of the line this extension adds to a row

/** What the student's server says of one assignment's dates (ISO 8601 instants). */
export interface IDates {
  readonly due: string;
  readonly until: string | null;
}

export class AssignmentList {
  private language: Language = DEFAULT_LANGUAGE;
  private dates: { readonly [assignment: string]: IDates } = {};
  private observed: Element | null = null;

  constructor(private readonly app: JupyterFrontEnd) {}

  /** The student's language, as their server last said it (./saving.ts speaks it too). */
  get spoken(): Language {
    return this.language;
  }

  /** The list's words said from now on, as its panel opens; the student's language asked again after each Fetch. */
  watch(): void {
    this.app.commands.commandExecuted.connect((_, executed) => {
      if (executed.id === OPEN_LIST) {
        this.observe();
        void this.askLanguage(); // the dates, as they are now
      }
    });
    watchAnswers(FETCHED, () => this.askLanguage());
  }

  /** The student's language, as their server answered `STATUS_URL` (`language`); the course's own when unsaid. */
  setLanguage(language: unknown): void {
    this.language = isLanguage(language) ? language : DEFAULT_LANGUAGE;
    this.observe();
  }

  /** Each assignment's due date and this student's extension, as their server answered `STATUS_URL` (`dates`). */
  setDates(dates: unknown): void {
    this.dates = typeof dates === 'object' && dates !== null ? (dates as { [assignment: string]: IDates }) : {};
    this.observe();
  }

  /** The list listed again by nbgrader itself (its refresh button), when its panel is open. */
  refresh(): void {
    const button = typeof document === 'undefined' ? null : document.querySelector(REFRESH);
    (button as HTMLElement | null)?.click();
  }

  private async askLanguage(): Promise<void> {
    const settings = this.app.serviceManager.serverSettings;
    const response = await ServerConnection.makeRequest(settings.baseUrl + STATUS_URL, { method: 'GET' }, settings);
    const answer = await response.json();
    this.dates = answer?.dates ?? {};
    this.setLanguage(answer?.language);
  }

  /** Under each released or fetched assignment's name, its due date and the student's extension (written only when
   * it changes: the panel's observer sees this extension's own writes too). */
  private showDates(panel: Element): void {
    for (const row of Array.from(panel.querySelectorAll(ROWS))) {
      const name = row.querySelector('.item_name');
      const assignment = name?.firstElementChild?.textContent?.trim() ?? '';
      const dates = this.dates[assignment];
      let line = name?.querySelector(`.${DUE}`) ?? null;
      const said = dates
        ? textsOf(this.language).due(dateText(dates.due, this.language), dates.until ? dateText(dates.until, this.language) : null)
        : '';
      if (name && said && line === null) {
        line = name.appendChild(panel.ownerDocument.createElement('div'));
        line.className = DUE;
      }
      if (line !== null && line.textContent !== said) {
        line.textContent = said;
      }
    }
  }

  /** The panel's words said now, and again whenever nbgrader writes some (one observer per panel). */
  private observe(): void {
    const panel = typeof document === 'undefined' ? null : document.getElementById(PANEL);
    if (panel === null || typeof MutationObserver === 'undefined') {
      return;
    }
    const texts = () => textsOf(this.language).assignmentList;
    const say = () => {
      sayWords(panel, wordsFor(NBGRADER_LIST_WORDS, texts()));
      this.showDates(panel);
    };
    say();
    for (const widget of this.app.shell.widgets('main')) {
      if (widget.id === PANEL) {
        widget.title.label = texts().title; // the tab's label
      }
    }
    if (this.observed !== panel) {
      this.observed = panel;
      new MutationObserver(say).observe(panel, { childList: true, subtree: true, characterData: true });
    }
  }
}
