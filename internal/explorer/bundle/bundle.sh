#!/usr/bin/env bash
# Builds the GraphQL explorer (GraphiQL, pinned in package-lock.json) into
# ../assets: one JS file, one CSS file and index.html, named by content hash
# so they can be cached for good. The output is committed and embedded in
# the binary (internal/explorer), so only whoever changes the explorer needs
# npm; CI and `make run` never do. Run it after editing entry.jsx,
# index.html or the pinned versions, then commit ../assets (go test
# ./internal/explorer checks the size limit).
set -euo pipefail
cd "$(dirname "$0")"
out=../assets

npm ci --no-audit --no-fund
rm -rf "$out"
mkdir -p "$out"
./node_modules/.bin/esbuild entry.jsx \
  --bundle --minify --format=iife --target=es2020 \
  --jsx=automatic --define:process.env.NODE_ENV='"production"' \
  --legal-comments=eof --charset=utf8 \
  --entry-names='explorer-[hash]' --outdir="$out"

js=$(cd "$out" && ls explorer-*.js)
css=$(cd "$out" && ls explorer-*.css)
sed -e "s|EXPLORER_JS|$js|" -e "s|EXPLORER_CSS|$css|" index.html >"$out/index.html"
du -b "$out"/*
