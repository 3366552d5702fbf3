#!/usr/bin/env bash
# Install Debian's Chromium (for the real-browser test) and a CJK font (so its screenshots
# show the chapter's Chinese, not boxes) when they are missing and we can: as root with
# apt-get, as on CI. Otherwise say how; the browser test then skips (or fails when CI=true).
set -u
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -n "$(fc-list :lang=zh 2>/dev/null)" ] || missing+=(fonts-noto-cjk)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} for the browser test ..."
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "note: ${missing[*]} missing; the browser test will skip (enable: sudo apt-get install ${missing[*]})"
fi
exit 0
