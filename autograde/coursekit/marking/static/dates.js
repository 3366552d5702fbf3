// The marking page's due-date panel: the piece of work's due date, every extension (who, when, why), every late
// submission with its grade as every surface shows it (coursekit.grades), and a form granting an extension as
// `make extend` does (POST api/extend; the server refuses bad input with the reason, and changes nothing then).
// Data: GET api/dates (coursekit.marking.dates.dates_view). Keys typed here stay here (the page's own keys are
// marking.js's).
"use strict";
(function () {
  const WORDS = {
    zh: { title: "截止时间与延期", due: "截止时间：", none: "（没有截止时间：make due DUE=… 或 Formgrader 设置）",
      extensions: "延期", late: "迟交的提交（成绩与 nbgrader export 相同）", student: "学生", until: "延期到",
      reason: "原因", by: "记录人", at: "记录于", submitted: "提交于", dueFor: "应交", raw: "原始分",
      penalty: "迟交扣分", grade: "成绩", grant: "延期", untilHint: "例如 2027-01-20 23:59（{zone}），none 取消延期",
      saved: "已记录 {student} 的延期", noExtensions: "没有延期", noLate: "没有迟交的提交" },
    en: { title: "Due date and extensions", due: "Due: ", none: "(no due date: make due DUE=… or the Formgrader)",
      extensions: "Extensions", late: "Late submissions (grades as nbgrader export gives them)", student: "Student",
      until: "Until", reason: "Reason", by: "By", at: "At", submitted: "Submitted", dueFor: "Due for them",
      raw: "Raw", penalty: "Penalty", grade: "Grade", grant: "Extend",
      untilHint: "e.g. 2027-01-20 23:59 ({zone}); none withdraws it", saved: "Extension of {student} recorded",
      noExtensions: "No extensions", noLate: "No late submissions" },
  };
  const initial = JSON.parse(document.getElementById("initial").textContent);
  const board = initial.board || {};
  const W = WORDS[board.language] || WORDS.zh;
  const root = location.pathname.replace(/\/marking\/?$/, "/marking/");
  const panel = document.getElementById("dates");
  if (!panel || !board.assignment) return;
  const probe = window.__markingDates = { ready: false, view: null };

  const headers = window.markingHeaders;  // request.js
  async function call(path, body) {
    const init = body === undefined ? { headers: headers() } : { method: "POST", headers: headers(), body: JSON.stringify(body) };
    const response = await fetch(root + "api/" + path + "?assignment=" + encodeURIComponent(board.assignment), init);
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
    body.replaceChildren(el("p", view.due ? W.due + view.due_text : W.none, "due"));
    body.appendChild(el("h3", W.extensions));
    body.appendChild(table([W.student, W.until, W.reason, W.by, W.at], view.extensions.map((e) =>
      [e.student, e.until_text, e.reason, e.granted_by, e.granted_at]), W.noExtensions));
    body.appendChild(el("h3", W.late));
    body.appendChild(table([W.student, W.submitted, W.dueFor, W.raw, W.penalty, W.grade], view.late.map((g) =>
      [g.student + (g.assignment !== view.assignment ? " · " + g.assignment : ""), g.submitted, g.due, fmt(g.raw),
       "-" + fmt(g.penalty), fmt(g.score) + " / " + fmt(g.max_score)]), W.noLate));
    const form = body.appendChild(el("form"));
    const student = form.appendChild(el("select"));
    student.name = "student";
    student.setAttribute("aria-label", W.student);
    view.students.forEach((s) => { const o = student.appendChild(el("option", s)); o.value = s; });
    const until = form.appendChild(el("input"));
    Object.assign(until, { name: "until", placeholder: W.untilHint.replace("{zone}", view.timezone) });
    until.setAttribute("aria-label", W.until);
    const reason = form.appendChild(el("input"));
    Object.assign(reason, { name: "reason", placeholder: W.reason });
    reason.setAttribute("aria-label", W.reason);
    form.appendChild(el("button", W.grant)).type = "submit";
    const said = form.appendChild(el("span", "", "said"));
    said.setAttribute("role", "status");
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const answer = await call("extend", { student: student.value, until: until.value, reason: reason.value });
        draw(answer);
        panel.querySelector(".said").textContent = W.saved.replace("{student}", student.value);
      } catch (error) {
        said.textContent = error.message;
        said.classList.add("error");
      }
    });
  }

  panel.querySelector("summary").textContent = W.title;
  panel.addEventListener("keydown", (e) => e.stopPropagation());  // typing a date moves no answer
  call("dates").then(draw).catch((error) => panel.querySelector(".body").replaceChildren(el("p", error.message, "error")))
    .finally(() => { probe.ready = true; });
})();
