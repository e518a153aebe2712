#!/usr/bin/env bash
# Build the krew plugin archive for `kubectl k10s` and its filled-in manifest.
#
#   deploy/krew/build-plugin.sh [OUT_DIR] [URL_BASE]
#
# OUT_DIR (default dist/krew) receives kubectl-k10s-v<version>.tar.gz - the wrapper script
# deploy/krew/kubectl-k10s, the package's wheel, README.md - and k10s.yaml, the manifest of
# deploy/krew/k10s.yaml with the archive's sha256 and URL_BASE/<archive> as its uri (publish
# the archive there, then submit k10s.yaml to a krew index or `kubectl krew install
# --manifest=OUT_DIR/k10s.yaml --archive=OUT_DIR/kubectl-k10s-v<version>.tar.gz`).
# The archive is reproducible: same sources, same bytes (SOURCE_DATE_EPOCH, sorted, no owners).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mkdir -p "${1:-$REPO/dist/krew}" && cd "${1:-$REPO/dist/krew}" && pwd)
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$REPO/pyproject.toml" | head -1)
URL_BASE=${2:-$(sed -n 's|^ *uri: \(.*\)/kubectl-k10s-v.*|\1|p' "$REPO/deploy/krew/k10s.yaml" | head -1)}
PY=${PYTHON:-python3}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}   # 2026-01-01, fixed: reproducible zips
grep -q "^VERSION=$VERSION\$" "$REPO/deploy/krew/kubectl-k10s" || { echo "build-plugin.sh: kubectl-k10s VERSION is not $VERSION" >&2; exit 2; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
"$PY" -m pip wheel -q --no-deps -w "$stage/wheel" "$REPO" >&2
mkdir "$stage/plugin"
cp "$stage/wheel/k10s_forensics-$VERSION-py3-none-any.whl" "$REPO/README.md" "$stage/plugin/"
install -m 0755 "$REPO/deploy/krew/kubectl-k10s" "$stage/plugin/kubectl-k10s"
chmod 0644 "$stage/plugin/README.md" "$stage/plugin/"*.whl
archive="kubectl-k10s-v$VERSION.tar.gz"
tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner --format=ustar \
    -C "$stage/plugin" -cf - . | gzip -n -9 > "$OUT/$archive"
sha=$(sha256sum "$OUT/$archive" | cut -d' ' -f1)
sed -e "s|^\( *\)uri: .*|\1uri: $URL_BASE/$archive|" -e "s|^\( *\)sha256: .*|\1sha256: \"$sha\"|" \
    "$REPO/deploy/krew/k10s.yaml" > "$OUT/k10s.yaml"
echo "$OUT/$archive sha256 $sha"
