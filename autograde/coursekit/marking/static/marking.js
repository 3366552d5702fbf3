// The marking page: one question's answers as groups, the marking guide beside them, keyboard only.
// Data comes from coursekit.marking.board (inline for the first question, then GET api/board);
// every judgement is POSTed at once to api/judge (Python recomputes the score: the source of truth).
"use strict";
(function () {
  const root = location.pathname.replace(/\/marking\/?$/, "/marking/");
  const params = new URLSearchParams(location.search);
  const initial = JSON.parse(document.getElementById("initial").textContent);
  const $ = (id) => document.getElementById(id);
  const { say, sayN } = window.markingWords;  // words.js: the page's language's messages
  const lang = window.markingWords.lang;

  const S = {
    board: null, boards: {}, focus: 0, mode: "browse", splitIndex: 0, chain: Promise.resolve(),
    counts: {}, asked: 0,  // the server's counts of questions this page holds no board of: {q: {value, asked}}
    anonymous: localStorage.getItem("coursekit.marking.anonymous") === "1",
    requests: [],  // the assignment's regrade requests, open first (coursekit.marking.requests)
  };
  // What the tests and the benchmark read: saves in flight, move → paint times (ms).
  const probe = window.__marking = { ready: false, pending: 0, saves: 0, moves: [], question: null, errors: 0,
    refreshes: 0, decisions: 0 };

  // ---- arithmetic (the same as coursekit.marking.rubric.score_of; a test compares both) ----------
  function scoreOf(rubric, ticks, maxScore) {
    let shares = 0;
    rubric.points.forEach((p, i) => { if (ticks[i]) shares += p.share; });
    return Math.round(maxScore * shares / rubric.unit * 1e4) / 1e4;
  }
  probe.scoreOf = scoreOf;
  const fmt = (x) => (Math.round(x * 1e4) / 1e4).toString();
  // Enter saves only what the TA has seen (coursekit.marking.suggestions): a blank answer's 0, the mark of the same
  // answer, or the nearest marked answers' mark when they agree enough; never a rubric hint alone, never a 0 nobody
  // suggested.
  const NO_SUGGESTION = say("marking.no_suggestion");
  const HINT_ONLY = say("marking.hint_only");

  // ---- server ---------------------------------------------------------------------------------
  const headers = window.markingHeaders;  // request.js
  async function call(path, body) {
    const query = "?assignment=" + encodeURIComponent(S.board ? S.board.assignment : params.get("assignment") || "")
      + "&lang=" + encodeURIComponent(lang);  // the server's messages in the page's language
    const init = body === undefined ? { headers: headers() }
      : { method: "POST", headers: headers(), body: JSON.stringify(body), keepalive: true };
    const response = await fetch(root + "api/" + path + (path.includes("?") ? "&" + query.slice(1) : query), init);
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.message || response.status + " " + response.statusText);
    return data;
  }

  // A notice belongs to the question on screen: opening another one takes it away (errors stay their 15 s).
  function notice(text, kind) {
    const div = document.createElement("div");
    div.className = "notice" + (kind ? " " + kind : "");
    div.dataset.question = S.board ? S.board.question.grade_id : "";
    div.textContent = text;
    $("notices").appendChild(div);
    setTimeout(() => div.remove(), kind === "error" ? 15000 : 8000);
  }

  // ---- one group's state ----------------------------------------------------------------------
  const studentsOf = (g) => g.variants.flatMap((v) => v.students);
  // a student as the gradebook names them (coursekit.people: the name, the id beside it where two share one)
  const nameOf = (student) => (S.board.names || {})[student] || student;
  const stateOf = (g) => S.board.students[studentsOf(g)[0]];
  const isMarked = (g) => stateOf(g).score !== null && stateOf(g).score !== undefined;

  function kindOf(variants) {  // as coursekit.marking.grouping._regrouped
    const size = variants.reduce((n, v) => n + v.students.length, 0);
    return variants.length > 1 ? "near" : size > 1 ? "identical" : "single";
  }
  const KIND = { unanswered: say("marking.kind.unanswered"), identical: say("marking.kind.identical"),
    near: say("marking.kind.near"), single: say("marking.kind.single") };
  // What is marked (coursekit.marking.answers.KINDS): a written answer needs no label.
  const QUESTION_KIND = { code: say("marking.question_kind.code"), task: say("marking.question_kind.task") };

  // ---- drawing --------------------------------------------------------------------------------
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // What to mark in an answer's text: the phrases its hints found (a negated one apart) and what it shares with its
  // nearest marked answer, each found as written (the server found them in this very text).
  const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  function phrasePattern(phrases) {
    const parts = [...new Set(phrases.filter((p) => p && p.trim()))].sort((a, b) => b.length - a.length).map(escaped);
    return parts.length ? new RegExp(parts.join("|"), "g") : null;
  }

  function highlight(container, pattern, classOf) {  // wraps phrases in <mark>, text nodes only (never inside MathML)
    if (!pattern) return;
    const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => n.parentElement.closest("math") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT });
    const nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    for (const node of nodes) {
      const text = node.nodeValue;
      pattern.lastIndex = 0;
      if (!pattern.test(text)) continue;
      pattern.lastIndex = 0;
      const frag = document.createDocumentFragment();
      let last = 0, m;
      while ((m = pattern.exec(text)) !== null) {
        if (!m[0].length) { pattern.lastIndex += 1; continue; }  // a pattern of lookarounds only: nothing to mark
        frag.appendChild(document.createTextNode(text.slice(last, m.index)));
        frag.appendChild(el("mark", classOf(m[0]), m[0]));
        last = m.index + m[0].length;
      }
      frag.appendChild(document.createTextNode(text.slice(last)));
      node.replaceWith(frag);
    }
  }

  function ticksLine(state, rubric) {
    const line = el("div", "ticks");
    if (!rubric || !state.ticks) return line;
    state.ticks.forEach((on, i) => line.appendChild(  // each point whole, on a line of its own (never cut)
      el("span", "tick " + (on ? "on" : "off"), (on ? "✓" : "✗") + (i + 1) + " " + rubric.points[i].text)));
    return line;
  }

  // ---- regrade requests ------------------------------------------------------------------------
  // The open requests of the students of group g on the question on screen.
  const requestsOf = (g) => S.requests.filter((r) => r.state === "open" && r.question === S.board.question.grade_id
    && studentsOf(g).includes(r.student));
  const STATE = { open: say("marking.request_state.open"), kept: say("marking.request_state.kept"),
    changed: say("marking.request_state.changed") };
  const score = (x) => x === null || x === undefined ? say("marking.unmarked") : say("marking.points", { score: fmt(x) });

  function drawRequests() {
    const box = $("requests");
    const open = S.requests.filter((r) => r.state === "open");
    box.hidden = !S.requests.length;
    box.replaceChildren(el("h2", "", say("marking.requests_heading", { open: open.length, total: S.requests.length })
      + (open.length ? " · " + say("marking.requests_next") : "")));
    const list = box.appendChild(el("ol", "requests"));
    S.requests.forEach((r) => {
      const item = list.appendChild(el("li", "request " + r.state));
      item.dataset.request = r.id;
      item.appendChild(el("div", "head", say("marking.request_head", { state: STATE[r.state], student: r.student,
        question: r.name, filed: r.filed, then: score(r.score_then), now: score(r.score_now) })));
      item.appendChild(el("div", "reason", r.reason));  // the student's words: text, never HTML
      if (r.state !== "open") {
        item.appendChild(el("div", "decision", (r.decided_by || "") + " · " + (r.decided || "") + " · "
          + score(r.score_then) + " → " + score(r.score_after)
          + (r.comment ? " · " + say("marking.decision_note", { comment: r.comment }) : "")));
      } else if (r.kind === "test") {
        decisionForm(item, [r], true);
      }
    });
  }

  // A decision's form: the comment the student reads, and for a test cell its new score (nbgrader's manual score).
  function decisionForm(container, requests, withScore) {
    const form = container.appendChild(el("div", "decide"));
    let given = null;
    if (withScore) {
      const label = form.appendChild(el("label", "", say("marking.new_score")));
      given = label.appendChild(document.createElement("input"));
      given.type = "number"; given.step = "any"; given.min = "0";
    }
    const area = form.appendChild(el("textarea", "comment"));
    area.placeholder = say("marking.decision_placeholder");
    const button = form.appendChild(el("button", "", say("marking.save_decision")));
    const send = () => decideOn(requests, area.value, given && given.value !== "" ? Number(given.value) : null);
    button.addEventListener("click", send);
    [area, given].filter(Boolean).forEach((field) => field.addEventListener("keydown", (e) => {
      e.stopPropagation();
      if (e.key === "Escape") { S.mode = "browse"; if (!withScore) form.remove(); field.blur(); }
      else if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); send(); }
    }));
    return area;
  }

  async function decideOn(requests, comment, given) {
    S.mode = "browse";
    try {
      await S.chain;  // the TA's last marks are saved before the decision compares them
      const body = { ids: requests.map((r) => r.id), comment: comment, score: given };
      const answer = await call("regrade/decide", body);
      S.requests = answer.requests;
      const decided = S.requests.filter((r) => answer.decided.includes(r.id));
      const each = decided.map((r) => say("marking.decided_one", { student: r.student, state: STATE[r.state],
        then: score(r.score_then), after: score(r.score_after) }));
      notice(say("marking.decided", { decisions: each.join(say("locale.clause_separator")) }));
      probe.decisions += 1;
    } catch (error) {
      notice(say("marking.decision_failed", { error: error.message }), "error");
    }
    drawRequests();
    if (S.board.groups[S.focus]) redraw(S.focus);
  }

  function openDecision() {  // d: the focused group's open requests
    const g = current();
    const asked = g ? requestsOf(g) : [];
    if (!asked.length) { notice(say("marking.no_request_here")); return; }
    S.mode = "comment";
    decisionForm($("answers").children[S.focus], asked, false).focus();
  }

  async function nextRequest() {  // q: the first open request, its answer in focus (a test cell: its form)
    const r = S.requests.find((x) => x.state === "open");
    if (!r) { notice(say("marking.no_request")); return; }
    if (r.kind === "test") {
      const field = document.querySelector('#requests [data-request="' + r.id + '"] textarea');
      if (field) { field.scrollIntoView({ block: "nearest" }); field.focus(); }
      return;
    }
    if (S.board.question.grade_id !== r.question) await load(r.question, false);
    const index = S.board.groups.findIndex((g) => studentsOf(g).includes(r.student));
    if (index >= 0) moveTo(index);
  }

  const hinted = (g) => !!(g.hint && g.hint.ticks.some((t) => t));
  function hintPhrases(g) {  // {phrase: negated?} of every variant's hints
    const found = new Map();
    g.variants.forEach((v) => (v.hint ? v.hint.hits : []).forEach((h) => found.set(h.phrase, !!h.negation)));
    return found;
  }

  // Under an unmarked group: its nearest marked groups with their marks, and what the rubric's phrases say.
  function advice(div, g, rubric) {
    if (g.neighbours && g.neighbours.length) {
      const line = div.appendChild(el("div", "neighbours", say("marking.neighbours")));
      g.neighbours.forEach((n, i) => line.appendChild(el("span", "neighbour",
        (i ? say("locale.clause_separator") : "") + say("marking.points", { score: fmt(n.score) })
        + (n.ticks && rubric ? say("marking.neighbour_ticks", { ticks: n.ticks.map((t, j) => (t ? "✓" : "✗") + (j + 1))
          .join(" ") }) : "") + " · " + say("marking.similarity", { similarity: n.similarity.toFixed(2) })
        + (n.students > 1 ? " · " + sayN("marking.students_n", n.students) : ""))));
    }
    if (!g.hint || !rubric) return;
    const hits = g.hint.hits, line = el("div", "hints");
    hits.forEach((h) => line.appendChild(el("span", "hint" + (h.negation ? " negated" : ""), h.negation
      ? say("marking.hint_negated", { point: h.point + 1, negation: h.negation, phrase: h.phrase })
      : say("marking.hint_term", { point: h.point + 1, phrase: h.phrase }))));
    if (hits.length) div.appendChild(line);
  }

  function card(g, index) {
    const board = S.board, rubric = board.rubric, state = stateOf(g), max = board.question.max_score;
    const div = el("div", "group" + (isMarked(g) ? " marked" : "") + (index === S.focus ? " focus" : ""));
    div.dataset.index = index;
    div.dataset.kind = g.kind;
    const head = div.appendChild(el("div", "head"));
    const size = studentsOf(g).length;
    head.appendChild(el("span", "kind " + g.kind, KIND[g.kind] + (size > 1 ? " ×" + size : "")));
    head.appendChild(el("span", "nth", say("marking.nth_group", { n: index + 1, total: board.groups.length })));
    const done = isMarked(g);
    head.appendChild(el("span", "score" + (done ? "" : " unmarked"),
      done ? say("marking.score_of", { score: fmt(state.score), max: fmt(max) }) + (state.pending ? " …" : "")
        : say("marking.unmarked")));
    if (state.unanswered) div.appendChild(el("div", "ticks", say("marking.unanswered_zero")));
    else div.appendChild(ticksLine(state, rubric));
    if (!done && g.suggestion) {
      const s = g.suggestion;
      const ticks = s.ticks && rubric
        ? " · " + say("marking.suggestion_ticks", { ticks: s.ticks.map((t, i) => (t ? "✓" : "✗") + (i + 1)).join(" ") }) : "";
      div.appendChild(el("div", "suggestion", say("marking.suggestion", { score: fmt(s.score), ticks: ticks,
        reason: s.reason })));
    } else if (!done) {
      div.appendChild(el("div", "suggestion none", hinted(g) ? HINT_ONLY : NO_SUGGESTION));
    }
    if (!done) advice(div, g, rubric);
    const asked = requestsOf(g);
    if (asked.length) {
      const banner = div.appendChild(el("div", "request-banner"));
      asked.forEach((r) => {
        const line = banner.appendChild(el("div", "request-line"));
        line.appendChild(el("span", "who", say("marking.request_who", { student: r.student })));
        line.appendChild(el("span", "reason", r.reason));  // the student's words: text, never HTML
      });
      banner.appendChild(el("div", "request-hint", say("marking.request_hint")));
    }
    if (state.remark) div.appendChild(el("div", "remark", say("marking.remark", { remark: state.remark })));
    const phrases = hintPhrases(g);
    const pattern = phrasePattern([...phrases.keys(), ...(done ? [] : g.shared || [])]);
    const classOf = (text) => phrases.has(text) ? (phrases.get(text) ? "term negated" : "term") : "shared";
    let k = 0;
    g.variants.forEach((v) => {
      const box = div.appendChild(el("div", "variant"));
      const who = box.appendChild(el("div", "who"));
      who.appendChild(el("span", "count", sayN("marking.students_n", v.students.length)));
      who.appendChild(el("span", "ids", say("marking.who", {
        students: v.students.map(nameOf).join(say("locale.list_separator")) })));
      const looks = board.hard_coded || {};  // the class report's "may be hard-coded", fed by the same function
      v.students.filter((s) => looks[s]).forEach((s) => box.appendChild(el("div", "looks",
        say("marking.looks", { student: nameOf(s), line: looks[s] }))));
      const text = box.appendChild(el("div", "text"));
      text.innerHTML = v.html;  // rendered, escaped and sanitised by coursekit.marking.render (and the page's CSP)
      highlight(text, pattern, classOf);
      if (S.mode === "split" && index === S.focus) {
        v.students.forEach((student) => {
          const row = box.appendChild(el("div", "variant split-row" + (k === S.splitIndex ? " selected" : "")));
          row.appendChild(el("span", "ids", nameOf(student)));
          row.appendChild(el("span", "", k === S.splitIndex ? "  " + say("marking.split_here") : ""));
          k += 1;
        });
      }
    });
    return div;
  }

  function drawAnswers() {
    const list = $("answers");
    list.replaceChildren(...S.board.groups.map(card));
  }

  function redraw(index) {
    const old = $("answers").children[index];
    if (old) old.replaceWith(card(S.board.groups[index], index));
  }

  // ---- progress: one count per question for the whole page ----------------------------------------
  // A question whose board the page holds is counted from that board's answers, this page's own judgements
  // included at once (coursekit.marking.store.marked_counts counts the same rows; a test compares both).
  // Any other question: the count of the newest request that brought one (a board fetched earlier is older).
  function learnCounts(progress, asked) {
    Object.entries(progress).forEach(([q, value]) => {
      if (!S.counts[q] || S.counts[q].asked <= asked) S.counts[q] = { value: value, asked: asked };
    });
  }
  function countOf(q) {
    const board = S.boards[q];
    if (board) {
      const states = Object.values(board.students);
      return [states.filter((s) => s.score !== null && s.score !== undefined).length, states.length];
    }
    return S.counts[q] ? S.counts[q].value : [0, 0];
  }
  probe.counts = () => Object.fromEntries(S.board.questions.map((q) => [q.grade_id, countOf(q.grade_id)]));

  function drawAssignments() {
    const nav = $("assignments"), board = S.board;
    nav.replaceChildren(...(board.assignments || []).map((a) => {
      const link = el("a", "assignment" + (a.id === board.assignment ? " current" : "")
        + (a.total && a.marked === a.total ? " done" : ""),
        say("marking.assignment_progress", { title: a.title || a.id, marked: a.marked, total: a.total }));
      link.href = "?assignment=" + encodeURIComponent(a.id) + "&lang=" + encodeURIComponent(lang);
      return link;
    }));
  }

  function drawQuestions() {
    const nav = $("questions"), board = S.board;
    let marked = 0, total = 0;
    nav.replaceChildren(...board.questions.map((q) => {
      const [m, t] = countOf(q.grade_id);
      marked += m;
      total += t;
      const span = el("span", "q" + (q.grade_id === board.question.grade_id ? " current" : "")
        + (t && m === t ? " done" : ""), q.short + " " + m + "/" + t);
      span.dataset.question = q.grade_id;
      span.title = q.title && q.title !== q.name ? q.name + " · " + q.title : q.name;
      return span;
    }));
    const [qm, qt] = countOf(board.question.grade_id);
    $("status").textContent = say("marking.status", { marked: qm, total: qt, left: qt - qm, all_marked: marked,
      all_total: total, all_left: total - marked });
  }

  function drawGuide() {
    const board = S.board, guide = $("guide"), rubric = board.rubric, max = board.question.max_score;
    guide.replaceChildren();
    board.warnings.forEach((w) => guide.appendChild(el("p", "warning", w)));
    guide.appendChild(el("h2", "", say("marking.question_heading", { name: board.question.name, max: fmt(max) })
      + (QUESTION_KIND[board.question.kind] ? " · " + QUESTION_KIND[board.question.kind] : "")));
    const prompt = guide.appendChild(el("div", "prompt"));
    prompt.innerHTML = board.question.prompt_html;
    if (rubric) {
      guide.appendChild(el("h2", "", say("marking.rubric_heading")));
      const ol = guide.appendChild(el("ol", "rubric"));
      rubric.points.forEach((p) => {
        const li = ol.appendChild(el("li", "", p.text + " "));
        li.appendChild(el("span", "share", say("marking.share", { points: fmt(max * p.share / rubric.unit) })));
        // the phrases markers recognise; the rubric's regular expressions are the machine's, never shown
        if (p.terms.length) {
          li.appendChild(el("div", "terms", say("marking.terms", { terms: p.terms.join(say("locale.list_separator")) })));
        }
      });
    }
    guide.appendChild(el("h2", "", say("marking.reference")));
    const reference = guide.appendChild(el("div", "reference"));
    if (board.question.reference_html) reference.innerHTML = board.question.reference_html;
    else reference.textContent = say("marking.no_reference");
  }

  function show(board, keepFocus) {
    const previous = S.board && S.board.question.grade_id === board.question.grade_id
      ? (S.board.groups[S.focus] || {}).id : null;
    document.querySelectorAll("#notices .notice:not(.error)").forEach((n) => {
      if (n.dataset.question !== board.question.grade_id) n.remove();
    });
    S.board = board;
    S.boards[board.question.grade_id] = board;
    S.requests = board.requests || S.requests;
    S.mode = "browse";
    const kept = keepFocus && previous ? board.groups.findIndex((g) => g.id === previous) : -1;
    S.focus = kept >= 0 ? kept : Math.max(0, board.groups.findIndex((g) => !isMarked(g)));
    probe.question = board.question.grade_id;
    document.body.classList.toggle("anonymous", S.anonymous);
    drawAssignments();
    drawQuestions();
    drawGuide();
    drawRequests();
    drawAnswers();
    scrollToFocus();
    const next = params.get("question");
    params.set("question", board.question.grade_id);
    if (next !== board.question.grade_id) history.replaceState(null, "", "?" + params.toString());
    // the link to each other language opens this very question, in that language
    document.querySelectorAll("#languages a[hreflang]").forEach((a) => {
      const there = new URLSearchParams(params);
      there.set("lang", new URLSearchParams(a.search).get("lang"));
      a.search = "?" + there.toString();
    });
  }

  function scrollToFocus() {
    const node = $("answers").children[S.focus];
    if (node) node.scrollIntoView({ block: "nearest" });
  }

  // ---- moving ---------------------------------------------------------------------------------
  function moveTo(index, event) {
    const groups = S.board.groups;
    if (!groups.length) return;
    index = Math.max(0, Math.min(groups.length - 1, index));
    const list = $("answers").children;
    if (list[S.focus]) list[S.focus].classList.remove("focus");
    S.focus = index;
    list[index].classList.add("focus");
    scrollToFocus();
    if (event) {  // keydown → the frame showing the new focus has been painted
      const start = event.timeStamp;
      requestAnimationFrame(() => setTimeout(() => probe.moves.push(performance.now() - start), 0));
    }
  }

  // The unmarked group the page asks for next: the server's order (coursekit.marking.suggestions: the group whose mark
  // teaches the page most first, those it can suggest for last), else the next one down the list.
  function nextUnmarked() {
    const groups = S.board.groups;
    let best = -1;
    groups.forEach((g, i) => {
      if (i === S.focus || isMarked(g) || g.ask === null || g.ask === undefined) return;
      if (best < 0 || g.ask < groups[best].ask) best = i;
    });
    if (best >= 0) return best;
    for (let step = 1; step <= groups.length; step++) {
      const i = (S.focus + step) % groups.length;
      if (!isMarked(groups[i])) return i;
    }
    return -1;
  }

  async function openQuestion(offset) {
    const qs = S.board.questions.map((q) => q.grade_id);
    const i = qs.indexOf(S.board.question.grade_id) + offset;
    if (i < 0 || i >= qs.length) { notice(offset > 0 ? say("marking.last_question") : say("marking.first_question")); return; }
    await load(qs[i], false);
    const after = qs[i + 1];
    if (after && !S.boards[after]) fetchBoard(after).catch(() => null);  // ready before the marker gets there
  }

  function fetchBoard(question) {
    const asked = ++S.asked;
    return call("board?question=" + encodeURIComponent(question)).then((b) => {
      S.boards[question] = b;
      learnCounts(b.progress, asked);
      return b;
    });
  }

  async function load(question, fresh) {
    try {
      await S.chain;  // a reload shows this page's own saves
      show(!fresh && S.boards[question] ? S.boards[question] : await fetchBoard(question), fresh);
    } catch (error) {
      notice(say("marking.load_failed", { error: error.message }), "error");
    }
  }

  // ---- saving: one request at a time, in order; what is still queued when the tab closes is sent at once ----
  // A judgement carries the group's whole state, so a queued one replaces an older one for the same answers.
  const queue = [];
  let sending = false;
  const pageId = Math.random().toString(36).slice(2) + Date.now().toString(36);
  let seq = 0;
  const version = {};  // {student: local changes made}: a reply older than the latest change keeps the latter

  function enqueue(item) {
    item.body.page = pageId;
    item.body.seq = ++seq;
    item.versions = {};
    (item.body.students || []).forEach((s) => { version[s] = (version[s] || 0) + 1; item.versions[s] = version[s]; });
    const i = queue.findIndex((q) => q.key === item.key);
    if (i >= 0) queue[i] = item; else queue.push(item);
    probe.pending = queue.length + (sending ? 1 : 0);
    if (!sending) S.chain = sendNext();
  }

  function bodyOf(item) {  // what the marker saw: each answer's saved judgement and its text (a changed text is refused)
    const board = item.board, body = Object.assign({}, item.body, { seen: {}, texts: {} });
    body.students.forEach((s) => { body.seen[s] = board.students[s].token; body.texts[s] = board.texts[s]; });
    return body;
  }

  // A judgement queued while the suggestions are read again is sent in the next round: sending stays true till then,
  // so enqueue starts no second sender, and the queue is empty when it ends.
  async function sendNext() {
    sending = true;
    while (queue.length) {
      let judged = null;
      while (queue.length) {
        const item = queue.shift();
        probe.pending = queue.length + 1;
        await (item.split ? sendSplit(item) : sendJudgement(item));
        if (!item.split) judged = item.board;
      }
      if (judged) await refreshAdvice(judged);
    }
    sending = false;
    probe.pending = 0;
  }

  // The TA's new marks teach the page: once every save is answered, the question's suggestions, nearest marked
  // answers and order of asking are read again and put on the groups the page shows (by id), redrawing those changed;
  // never on the group in focus: Enter confirms what the TA is looking at, not what arrived meanwhile.
  const ADVICE = ["suggestion", "neighbours", "shared", "hint", "ask"];
  async function refreshAdvice(board) {
    let fresh;
    try {
      fresh = await call("board?question=" + encodeURIComponent(board.question.grade_id));
    } catch (error) {
      return;  // the suggestions stay as they were; the next save or r reads them again
    }
    if (fresh.requests && JSON.stringify(fresh.requests) !== JSON.stringify(S.requests)) {
      S.requests = fresh.requests;
      drawRequests();
    }
    const byId = new Map(fresh.groups.map((g) => [g.id, g]));
    board.groups.forEach((g, i) => {
      const now = byId.get(g.id);
      if (!now || isMarked(g) || (S.board === board && i === S.focus)) return;
      const changed = ADVICE.some((key) => JSON.stringify(g[key]) !== JSON.stringify(now[key]));
      ADVICE.forEach((key) => { g[key] = now[key]; });
      if (changed && S.board === board && !(S.mode !== "browse" && i === S.focus)) redraw(i);
    });
    probe.refreshes += 1;
  }

  async function sendJudgement(item) {
    const board = item.board, g = item.group, asked = ++S.asked;
    try {
      const saved = await call("judge", bodyOf(item));
      Object.entries(saved.students).forEach(([s, state]) => {
        if (version[s] === item.versions[s]) board.students[s] = state;   // nothing newer here: the server's word
        else board.students[s].token = state.token;                         // a newer change is queued: keep it
      });
      learnCounts({ [board.question.grade_id]: saved.progress }, asked);
      probe.saves += 1;
      const replaced = Object.keys(saved.replaced);
      if (replaced.length) {
        const list = say("locale.list_separator");
        const who = S.anonymous ? sayN("marking.answers_n", replaced.length) : replaced.join(list);
        notice(say("marking.overwrote", { who: who, was: replaced.map((s) => score(saved.replaced[s].score)).join(list) }));
      }
    } catch (error) {
      probe.errors += 1;
      notice(say("marking.save_failed", { error: error.message }), "error");
      S.boards = {};
      await fetchBoard(board.question.grade_id).then((b) => show(b, true)).catch(() => null);
    }
    if (S.board === board) {
      const i = board.groups.indexOf(g);
      if (i >= 0 && !(S.mode !== "browse" && i === S.focus)) redraw(i);  // never under an open comment or split
      drawQuestions();
    }
  }

  async function sendSplit(item) {
    await call("split", item.body).catch((error) => notice(say("marking.split_failed", { error: error.message }), "error"));
  }

  window.addEventListener("pagehide", () => {  // the tab closes or reloads: send what is queued now
    while (queue.length) {
      const item = queue.shift();
      call(item.split ? "split" : "judge", item.split ? item.body : bodyOf(item)).catch(() => null);
    }
  });

  // ---- judging --------------------------------------------------------------------------------
  function save(index, judgement) {
    const board = S.board, g = board.groups[index], students = studentsOf(g), rubric = board.rubric;
    const max = board.question.max_score;
    const score = judgement.clear ? null : judgement.unanswered ? 0
      : judgement.ticks && rubric ? scoreOf(rubric, judgement.ticks, max) : judgement.score;
    const hasComment = judgement.clear ? false : true;
    students.forEach((s) => {
      const old = board.students[s];
      board.students[s] = Object.assign({}, old, { score: score === undefined ? null : score, pending: true,
        ticks: judgement.clear ? null : judgement.ticks || null, remark: hasComment ? judgement.remark || "" : "",
        unanswered: !!judgement.unanswered });
    });
    redraw(index);
    const body = Object.assign({ question: board.question.grade_id, students: students, remark: "",
      unanswered: false, clear: false, ticks: null, score: null }, judgement);
    enqueue({ key: students.join(" "), body: body, board: board, group: g });
    drawQuestions();
  }

  function current() {
    return S.board.groups[S.focus];
  }

  function toggle(point) {
    const g = current(), rubric = S.board.rubric;
    if (!g) return;
    if (!rubric) { notice(say("marking.no_rubric")); return; }
    if (point >= rubric.points.length) { notice(sayN("marking.only_points", rubric.points.length)); return; }
    const state = stateOf(g);
    const ticks = isMarked(g) && state.ticks ? state.ticks.slice() : rubric.points.map(() => false);
    ticks[point] = !ticks[point];
    save(S.focus, { ticks: ticks, remark: state.remark || "" });
  }

  function setScore(fraction) {
    const g = current(), rubric = S.board.rubric, max = S.board.question.max_score;
    if (!g) return;
    const remark = stateOf(g).remark || "";
    if (rubric && fraction !== 0 && fraction !== 1) { notice(say("marking.has_rubric")); return; }
    if (rubric) save(S.focus, { ticks: rubric.points.map(() => fraction === 1), remark: remark });
    else save(S.focus, { score: max * fraction, remark: remark });
  }

  function confirmAndNext() {
    const g = current();
    if (!g) return;
    if (!isMarked(g) && g.suggestion && g.suggestion.enter) {
      const s = g.suggestion;
      save(S.focus, g.kind === "unanswered" ? { unanswered: true }
        : s.ticks && S.board.rubric ? { ticks: s.ticks.slice() } : { score: s.score });
    } else if (!isMarked(g)) {
      notice(hinted(g) ? HINT_ONLY : NO_SUGGESTION);
      return;
    }
    const next = nextUnmarked();
    if (next < 0) notice(say("marking.all_marked"));
    else moveTo(next);
  }

  function openComment() {
    const g = current();
    if (!g) return;
    S.mode = "comment";
    const node = $("answers").children[S.focus];
    const area = node.appendChild(el("textarea", "comment"));
    area.value = stateOf(g).remark || "";
    area.placeholder = say("marking.comment_placeholder");
    area.addEventListener("keydown", (e) => {
      e.stopPropagation();
      if (e.key === "Escape") { S.mode = "browse"; area.remove(); }
      else if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        const state = stateOf(g);
        S.mode = "browse";
        const keep = state.unanswered ? { unanswered: true }
          : state.ticks && S.board.rubric && isMarked(g) ? { ticks: state.ticks.slice() }
          : { score: isMarked(g) ? state.score : null };
        save(S.focus, Object.assign(keep, { remark: area.value }));
      }
    });
    area.focus();
  }

  function splitKey(key) {
    const g = current(), students = studentsOf(g);
    if (key === "Escape") { S.mode = "browse"; redraw(S.focus); return; }
    if (key === "j" || key === "ArrowDown") S.splitIndex = Math.min(students.length - 1, S.splitIndex + 1);
    else if (key === "k" || key === "ArrowUp") S.splitIndex = Math.max(0, S.splitIndex - 1);
    else if (key === "Enter" || key === "s") { splitOut(students[S.splitIndex]); return; }
    redraw(S.focus);
  }

  function splitOut(student) {
    const board = S.board, g = current();
    const variant = g.variants.find((v) => v.students.includes(student));
    const alone = { id: "split:" + student, kind: g.kind === "unanswered" ? "unanswered" : "single",
      variants: [{ html: variant.html, students: [student], suggestion: variant.suggestion }],
      suggestion: g.kind === "unanswered" ? g.suggestion : variant.suggestion };
    variant.students = variant.students.filter((s) => s !== student);
    g.variants = g.variants.filter((v) => v.students.length);
    if (g.kind !== "unanswered") g.kind = kindOf(g.variants);
    board.groups.splice(S.focus + 1, 0, alone);
    S.mode = "browse";
    drawAnswers();
    enqueue({ key: "split " + student, split: true, body: { question: board.question.grade_id, student: student } });
  }

  // ---- keys -----------------------------------------------------------------------------------
  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || !S.board) return;
    if (S.mode === "comment") return;
    if (e.target && e.target.closest && e.target.closest("input, textarea, button, select")) return;
    const key = e.key;
    if (S.mode === "split") { e.preventDefault(); splitKey(key); return; }
    if (key === "?") { $("help").hidden = !$("help").hidden; return; }
    if (!$("help").hidden && key === "Escape") { $("help").hidden = true; return; }
    const actions = {
      j: () => moveTo(S.focus + 1, e), ArrowDown: () => moveTo(S.focus + 1, e),
      k: () => moveTo(S.focus - 1, e), ArrowUp: () => moveTo(S.focus - 1, e),
      "]": () => openQuestion(1), "[": () => openQuestion(-1),
      Enter: confirmAndNext, f: () => setScore(1), 0: () => setScore(0), h: () => setScore(0.5),
      x: () => current() && save(S.focus, { unanswered: true }), u: () => current() && save(S.focus, { clear: true }),
      c: openComment, d: openDecision, q: nextRequest, a: () => { S.anonymous = !S.anonymous; localStorage.setItem("coursekit.marking.anonymous",
        S.anonymous ? "1" : "0"); document.body.classList.toggle("anonymous", S.anonymous); },
      r: () => load(S.board.question.grade_id, true),
      s: () => { if (current() && studentsOf(current()).length > 1) { S.mode = "split"; S.splitIndex = 0; redraw(S.focus); }
        else notice(say("marking.one_answer")); },
    };
    if (/^[1-9]$/.test(key)) { e.preventDefault(); toggle(Number(key) - 1); return; }
    if (actions[key]) { e.preventDefault(); actions[key](); }
  }

  probe.current = () => {
    const g = current();
    if (!g) return null;
    return { students: studentsOf(g), kind: g.kind, marked: isMarked(g), index: S.focus, count: S.board.groups.length,
      suggestion: g.suggestion, state: stateOf(g), mode: S.mode,
      remaining: S.board.groups.filter((x) => !isMarked(x)).length, question: S.board.question.grade_id,
      neighbours: g.neighbours, hint: g.hint, ask: g.ask, requests: requestsOf(g) };
  };
  probe.requests = () => S.requests.map((r) => ({ id: r.id, student: r.student, question: r.question, state: r.state,
    kind: r.kind, score_then: r.score_then, score_after: r.score_after }));

  document.addEventListener("keydown", onKey);
  if (initial.error) {
    $("answers").replaceChildren(el("p", "error-page", say("marking.cannot_open", { error: initial.error })));
  } else {
    S.boards[initial.board.question.grade_id] = initial.board;
    learnCounts(initial.board.progress, 0);
    show(initial.board, false);
    const qs = initial.board.questions.map((q) => q.grade_id);
    const after = qs[qs.indexOf(initial.board.question.grade_id) + 1];
    if (after) fetchBoard(after).catch(() => null);
  }
  probe.ready = true;
})();
