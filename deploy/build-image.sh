#!/usr/bin/env bash
# Build the k10s image from deploy/Containerfile (context: the repository root).
#
#   deploy/build-image.sh                                  # FROM python:3.12-slim, tag k10s-forensics:0.1.0
#   deploy/build-image.sh --base localhost/base:bookworm --local-base --tag localhost/k10s:test
#   deploy/build-image.sh --push registry.example.com/k10s-forensics:0.1.0   # via the tool's push
#
# Options:
#   --base IMAGE      base image (build-arg BASE; default python:3.12-slim)
#   --tag NAME        image name (default k10s-forensics:<version from pyproject.toml>)
#   --tool T          buildah, podman or docker (default: the first found, in that order)
#   --local-base      build --base from Debian packages with mmdebstrap when it is not in the
#                     image store yet (for machines that reach no registry; needs podman)
#   --ca-file PEM     extra CA certificates pip must trust during the build (repeatable; a
#                     TLS-intercepting proxy); they stay in the build stage only
#   --isolation I     buildah/podman --isolation (chroot where runc cannot run during RUN steps)
#   --network N       build network (e.g. host)
#   --push DEST       push the built image to DEST afterwards
# Environment: K10S_CTR_ROOT / K10S_CTR_RUNROOT give podman/buildah a storage root (vfs driver)
# instead of their default store. Prints the build time and the image size at the end.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$REPO/pyproject.toml" | head -1)
BASE=python:3.12-slim
TAG="k10s-forensics:$VERSION"
TOOL="" LOCAL_BASE=0 ISOLATION="" NETWORK="" PUSH=""
CA_FILES=()

die() { echo "build-image.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --base) BASE=${2:?}; shift 2 ;;
    --tag) TAG=${2:?}; shift 2 ;;
    --tool) TOOL=${2:?}; shift 2 ;;
    --local-base) LOCAL_BASE=1; shift ;;
    --ca-file) [ -r "${2:?}" ] || die "cannot read --ca-file $2"; CA_FILES+=("$2"); shift 2 ;;
    --isolation) ISOLATION=${2:?}; shift 2 ;;
    --network) NETWORK=${2:?}; shift 2 ;;
    --push) PUSH=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

if [ -z "$TOOL" ]; then
  for t in buildah podman docker; do command -v "$t" >/dev/null 2>&1 && { TOOL=$t; break; }; done
  [ -n "$TOOL" ] || die "none of buildah, podman, docker is installed"
fi
command -v "$TOOL" >/dev/null 2>&1 || die "$TOOL is not installed"

STORE=()
if [ -n "${K10S_CTR_ROOT:-}" ]; then
  [ "$TOOL" != docker ] || die "K10S_CTR_ROOT applies to podman/buildah only"
  STORE=(--root "$K10S_CTR_ROOT" --runroot "${K10S_CTR_RUNROOT:-$K10S_CTR_ROOT/run}" --storage-driver vfs)
fi
podman_() { podman "${STORE[@]}" "$@"; }

have_image() {
  case "$TOOL" in
    docker) docker image inspect "$1" >/dev/null 2>&1 ;;
    *) podman_ image exists "$1" ;;
  esac
}

build_local_base() {
  # A Debian bookworm minbase from Debian's own packages (~120 MB), imported as $BASE.
  command -v mmdebstrap >/dev/null 2>&1 || die "--local-base needs mmdebstrap"
  command -v podman >/dev/null 2>&1 || die "--local-base needs podman"
  local tmp mirror
  tmp=$(mktemp -d)
  mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  mmdebstrap --quiet --variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
    bookworm "$tmp/base.tar" "${mirror:-http://deb.debian.org/debian}"
  podman_ import "$tmp/base.tar" "$BASE" >/dev/null
  rm -rf "$tmp"
}

start=$(date +%s)
if [ "$LOCAL_BASE" = 1 ] && ! have_image "$BASE"; then
  echo "build-image.sh: building $BASE with mmdebstrap" >&2
  build_local_base
  echo "build-image.sh: base ready in $(( $(date +%s) - start ))s" >&2
fi

ARGS=(--build-arg "BASE=$BASE" -f "$REPO/deploy/Containerfile" -t "$TAG")
if [ ${#CA_FILES[@]} -gt 0 ]; then
  ARGS+=(--build-arg "EXTRA_CA_B64=$(cat "${CA_FILES[@]}" | base64 -w0)")
fi
[ -z "$NETWORK" ] || ARGS+=(--network "$NETWORK")
[ -z "$ISOLATION" ] || [ "$TOOL" = docker ] || ARGS+=(--isolation "$ISOLATION")

build_start=$(date +%s)
case "$TOOL" in
  buildah) buildah "${STORE[@]}" bud "${ARGS[@]}" "$REPO" ;;   # one layer per stage (vfs copies each layer whole)
  podman) podman_ build "${ARGS[@]}" "$REPO" ;;
  docker) docker build "${ARGS[@]}" "$REPO" ;;
  *) die "unknown --tool $TOOL (buildah, podman or docker)" ;;
esac
build_s=$(( $(date +%s) - build_start ))

case "$TOOL" in
  docker) size=$(docker image inspect --format '{{.Size}}' "$TAG") ;;
  *) size=$(podman_ image inspect --format '{{.Size}}' "$TAG") ;;
esac
if [ -n "$PUSH" ]; then
  case "$TOOL" in
    docker) docker tag "$TAG" "$PUSH" && docker push "$PUSH" ;;
    *) podman_ push "$TAG" "$PUSH" ;;
  esac
fi
echo "build-image.sh: $TAG built in ${build_s}s (total $(( $(date +%s) - start ))s), size $size bytes ($(( size / 1000000 )) MB)"
