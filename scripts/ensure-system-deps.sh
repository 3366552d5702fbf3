#!/usr/bin/env bash
# Install the Debian packages the test suite drives when they are missing and we can (root with
# apt-get, as on CI): Chromium and a CJK font for the browser tests (screenshots show the
# chapter's Chinese, not boxes), bubblewrap for the grading sandbox, Node for the students' Lab
# extension's test. Otherwise say how; those tests then skip (or fail when CI=true). `make grade` needs bubblewrap too (or ATTN_SANDBOX=off).
set -u
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -n "$(fc-list :lang=zh 2>/dev/null)" ] || missing+=(fonts-noto-cjk)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v node >/dev/null 2>&1 || missing+=(nodejs)  # the Lab extension's tests and its build (npm too), the hub's proxy
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} for the tests ..."
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "note: ${missing[*]} missing; the tests that need them will skip (enable: sudo apt-get install ${missing[*]})"
fi
exit 0
