// What every request of the marking page's scripts sends: JSON, the server's _xsrf cookie back, and the page's own
// token when it was opened with one (?token=…). marking.js and dates.js both use it.
"use strict";
window.markingHeaders = function () {
  const h = { "Content-Type": "application/json" };
  const xsrf = document.cookie.match(/(?:^|; )_xsrf=([^;]*)/);
  if (xsrf) h["X-XSRFToken"] = decodeURIComponent(xsrf[1]);
  const token = new URLSearchParams(location.search).get("token");
  if (token) h["Authorization"] = "token " + token;
  return h;
};
