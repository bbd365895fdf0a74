#!/usr/bin/env bash
# Renders a tidal HTML report to a PNG with Debian's headless Chromium, for review.
#   scripts/render-report.sh IN.html OUT.png [WIDTHxHEIGHT]
# Installs the `chromium` package with apt when it is missing (needs root or sudo). The page
# is self-contained, so Chromium runs with networking, sync and updates off.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 IN.html OUT.png [WIDTHxHEIGHT (default 1280x4000)]" >&2
  exit 2
fi
in_html=$1
out_png=$2
size=${3:-1280x4000}
if [[ ! -f "$in_html" ]]; then
  echo "$0: $in_html: no such file" >&2
  exit 1
fi
if [[ ! "$size" =~ ^[0-9]+x[0-9]+$ ]]; then
  echo "$0: size must look like 1280x4000, got $size" >&2
  exit 2
fi

browser=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then
    browser=$candidate
    break
  fi
done
if [[ -z "$browser" ]]; then
  echo "$0: chromium not found; installing the Debian package" >&2
  sudo_cmd=""
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=sudo; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
  browser=chromium
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
abs_in=$(cd "$(dirname "$in_html")" && pwd)/$(basename "$in_html")
mkdir -p "$(dirname "$out_png")"
abs_out=$(cd "$(dirname "$out_png")" && pwd)/$(basename "$out_png")

"$browser" --headless --no-sandbox --disable-gpu --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars --screenshot="$abs_out" \
  --window-size="${size/x/,}" "file://$abs_in" 2>"$profile/chromium.log" || {
  echo "$0: chromium failed:" >&2
  cat "$profile/chromium.log" >&2
  exit 1
}
if [[ ! -s "$abs_out" ]]; then
  echo "$0: chromium wrote no screenshot" >&2
  cat "$profile/chromium.log" >&2
  exit 1
fi
echo "wrote $out_png"
