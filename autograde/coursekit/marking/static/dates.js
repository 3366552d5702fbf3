// The marking page's due-date panel: the piece of work's due date, every extension (who, when, why), every late
// submission with its grade as every surface shows it (coursekit.grades), and a form granting an extension as
// `make extend` does (POST api/extend; the server refuses bad input with the reason, and changes nothing then).
// Data: GET api/dates (coursekit.marking.dates.dates_view). Keys typed here stay here (the page's own keys are
// marking.js's).
"use strict";
(function () {
  const initial = JSON.parse(document.getElementById("initial").textContent);
  const board = initial.board || {};
  const { say } = window.markingWords;  // words.js: the page's language's messages
  const root = location.pathname.replace(/\/marking\/?$/, "/marking/");
  const panel = document.getElementById("dates");
  if (!panel || !board.assignment) return;
  const probe = window.__markingDates = { ready: false, view: null };

  const headers = window.markingHeaders;  // request.js
  async function call(path, body) {
    const init = body === undefined ? { headers: headers() } : { method: "POST", headers: headers(), body: JSON.stringify(body) };
    const response = await fetch(root + "api/" + path + "?assignment=" + encodeURIComponent(board.assignment)
      + "&lang=" + encodeURIComponent(window.markingWords.lang), init);
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.message || response.status + " " + response.statusText);
    return data;
  }
  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function table(headings, rows, empty) {
    if (!rows.length) return el("p", empty, "empty");
    const t = el("table");
    const head = t.appendChild(el("tr"));
    headings.forEach((h) => head.appendChild(el("th", h)));
    rows.forEach((cells) => {
      const tr = t.appendChild(el("tr"));
      cells.forEach((c) => tr.appendChild(el("td", String(c))));
    });
    return t;
  }
  const fmt = (x) => (Math.round(x * 100) / 100).toString();

  function draw(view) {
    probe.view = view;
    const body = panel.querySelector(".body");
    body.replaceChildren(el("p", view.due ? say("marking.dates.due", { due: view.due_text }) : say("marking.dates.none"),
      "due"));
    body.appendChild(el("h3", say("marking.dates.extensions")));
    const student = say("marking.dates.student"), until = say("marking.dates.until"), reason = say("marking.dates.reason");
    body.appendChild(table([student, until, reason, say("marking.dates.by"), say("marking.dates.at")],
      view.extensions.map((e) => [e.student, e.until_text, e.reason, e.granted_by, e.granted_at]),
      say("marking.dates.no_extensions")));
    body.appendChild(el("h3", say("marking.dates.late")));
    body.appendChild(table([student, say("marking.dates.submitted"), say("marking.dates.due_for"), say("marking.dates.raw"),
      say("marking.dates.penalty"), say("marking.dates.grade")], view.late.map((g) =>
      [g.student + (g.assignment !== view.assignment ? " · " + g.assignment : ""), g.submitted, g.due, fmt(g.raw),
       "-" + fmt(g.penalty), fmt(g.score) + " / " + fmt(g.max_score)]), say("marking.dates.no_late")));
    const form = body.appendChild(el("form"));
    const chosen = form.appendChild(el("select"));
    chosen.name = "student";
    chosen.setAttribute("aria-label", student);
    view.students.forEach((s) => { const o = chosen.appendChild(el("option", s)); o.value = s; });
    const date = form.appendChild(el("input"));
    Object.assign(date, { name: "until", placeholder: say("marking.dates.until_hint", { zone: view.timezone }) });
    date.setAttribute("aria-label", until);
    const why = form.appendChild(el("input"));
    Object.assign(why, { name: "reason", placeholder: reason });
    why.setAttribute("aria-label", reason);
    form.appendChild(el("button", say("marking.dates.grant"))).type = "submit";
    const said = form.appendChild(el("span", "", "said"));
    said.setAttribute("role", "status");
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const answer = await call("extend", { student: chosen.value, until: date.value, reason: why.value });
        draw(answer);
        panel.querySelector(".said").textContent = say("marking.dates.saved", { student: chosen.value });
      } catch (error) {
        said.textContent = error.message;
        said.classList.add("error");
      }
    });
  }

  panel.querySelector("summary").textContent = say("marking.dates.title");
  panel.addEventListener("keydown", (e) => e.stopPropagation());  // typing a date moves no answer
  call("dates").then(draw).catch((error) => panel.querySelector(".body").replaceChildren(el("p", error.message, "error")))
    .finally(() => { probe.ready = true; });
})();
