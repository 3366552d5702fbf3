#!/usr/bin/env bash
# Install Debian's Chromium (for the real-browser test) when it is missing and we can:
# as root with apt-get, as on CI. Otherwise say how; the browser test then skips
# (or fails when CI=true).
set -u
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian chromium for the browser test ..."
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "note: /usr/bin/chromium missing; the browser test will skip (enable: sudo apt-get install chromium)"
fi
exit 0
