#!/usr/bin/env bash
# Renders a tidal HTML report to a PNG with Debian's headless Chromium, for review.
#   scripts/render-report.sh IN.html OUT.png [WIDTH | WIDTHxHEIGHT]
# The PNG is WIDTH (default 1280) CSS pixels wide and, unless a height is given, exactly as tall
# as the page laid out at that width: a first Chromium pass loads a copy of the page with one
# line of script appended that writes document.documentElement.scrollHeight into the title,
# read back with --dump-dom; the second pass takes the screenshot at that height. The report
# itself stays script-free. Installs the `chromium` package with apt when it is missing (needs
# root or sudo). The page is self-contained, so Chromium runs with networking, sync and updates
# off.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 IN.html OUT.png [WIDTH | WIDTHxHEIGHT (default: 1280 wide, the page's height)]" >&2
  exit 2
fi
in_html=$1
out_png=$2
size=${3:-1280}
if [[ ! -f "$in_html" ]]; then
  echo "$0: $in_html: no such file" >&2
  exit 1
fi
if [[ "$size" =~ ^([0-9]+)x([0-9]+)$ ]]; then
  width=${BASH_REMATCH[1]}
  height=${BASH_REMATCH[2]}
elif [[ "$size" =~ ^[0-9]+$ ]]; then
  width=$size
  height=""
else
  echo "$0: size must look like 1280 or 1280x4000, got $size" >&2
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

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
abs_in=$(cd "$(dirname "$in_html")" && pwd)/$(basename "$in_html")
mkdir -p "$(dirname "$out_png")"
abs_out=$(cd "$(dirname "$out_png")" && pwd)/$(basename "$out_png")

run_browser() {
  "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --hide-scrollbars "$@" 2>>"$work/chromium.log"
}

if [[ -z "$height" ]]; then
  if ! grep -q '</body>' "$abs_in"; then
    echo "$0: $in_html has no </body>; give the height as WIDTHxHEIGHT" >&2
    exit 1
  fi
  sed 's#</body>#<script>document.title = "tidal-page-height:" + document.documentElement.scrollHeight;</script></body>#' \
    "$abs_in" >"$work/measure.html"
  dom=$(run_browser --window-size="$width,1000" --dump-dom "file://$work/measure.html") || {
    echo "$0: chromium failed measuring the page:" >&2
    cat "$work/chromium.log" >&2
    exit 1
  }
  if [[ "$dom" =~ tidal-page-height:([0-9]+) ]]; then
    height=${BASH_REMATCH[1]}
  else
    echo "$0: could not measure the page height of $in_html; give it as WIDTHxHEIGHT" >&2
    cat "$work/chromium.log" >&2
    exit 1
  fi
fi

run_browser --screenshot="$abs_out" --window-size="$width,$height" "file://$abs_in" || {
  echo "$0: chromium failed:" >&2
  cat "$work/chromium.log" >&2
  exit 1
}
if [[ ! -s "$abs_out" ]]; then
  echo "$0: chromium wrote no screenshot" >&2
  cat "$work/chromium.log" >&2
  exit 1
fi
echo "wrote $out_png (${width}x${height})"
