#!/usr/bin/env bash
# Update the JavaScript the HTML report inlines (src/ranklens/report/static): Vega, Vega-Lite and
# Vega-Embed, minified UMD builds from the npm registry, with their licences.
#   scripts/update_vendored_js.sh [VEGA_VERSION VEGA_LITE_VERSION VEGA_EMBED_VERSION]
# Without arguments it takes the versions in src/ranklens/report/static/VERSIONS. After an
# update: run the report tests (tests/presentation, the browser ones need chromium), check
# SCHEMA in src/ranklens/report/charts.py against the Vega-Lite major version, and commit.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
static="$here/src/ranklens/report/static"
read_version() { awk -v name="$1" '$1 == name { print $2 }' "$static/VERSIONS"; }
vega="${1:-$(read_version vega)}"
vega_lite="${2:-$(read_version vega-lite)}"
vega_embed="${3:-$(read_version vega-embed)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "vega@$vega" "vega-lite@$vega_lite" "vega-embed@$vega_embed" >/dev/null
take() {  # package version build-file
  mkdir -p "$1" && tar xzf "$1-$2.tgz" -C "$1"
  # the source map comment points to a file the report does not carry
  sed '/^\/\/# sourceMappingURL=/d' "$1/package/build/$3" > "$static/$3"
  cp "$1/package/LICENSE" "$static/LICENSE-$1.txt"
}
take vega "$vega" vega.min.js
take vega-lite "$vega_lite" vega-lite.min.js
take vega-embed "$vega_embed" vega-embed.min.js
printf 'vega %s\nvega-lite %s\nvega-embed %s\n' "$vega" "$vega_lite" "$vega_embed" > "$static/VERSIONS"
ls -l "$static"
