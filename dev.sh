#!/usr/bin/env bash
# Developer entry points. Each subcommand sets everything up first, so it works on a fresh clone.
#   ./dev.sh demo   set up, then analyze a sample bundle and write its HTML report
#   ./dev.sh test   set up, then run the whole test suite
#   ./dev.sh setup  only set up (Python package + test deps; chromium and kubectl when root)
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}

setup_system() {
  # chromium (report browser tests), poppler-utils (PDF page check), kubectl (serve
  # tests), prometheus + promtool (Prometheus history tests), tmux (the `k10s view`
  # real-terminal test) and a headless JRE (Spark fleet engine) come from Debian packages.
  local need=()
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
  command -v kubectl >/dev/null 2>&1 || need+=(kubectl)
  command -v promtool >/dev/null 2>&1 || need+=(prometheus)
  command -v tmux >/dev/null 2>&1 || need+=(tmux)
  # a real Alertmanager posting to `k10s watch` (tests/test_watch_alertmanager.py); amtool checks
  # the receiver snippet of deploy/watch/overlays/alertmanager.
  { command -v prometheus-alertmanager && command -v amtool; } >/dev/null 2>&1 || need+=(prometheus-alertmanager)
  # java: the Spark fleet engine (k10s fleet analyze --engine spark, tests/test_fleet_spark.py).
  command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
  [ ${#need[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "dev.sh: missing ${need[*]} (install them, or run as root); the tests that need them will say so" >&2
    return 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  for pkg in "${need[@]}"; do
    if [ "$pkg" = kubectl ]; then
      # Debian ships kubectl in package kubernetes-client; some images have a kubectl package.
      apt-get install -y -qq kubectl >/dev/null 2>&1 || apt-get install -y -qq kubernetes-client >/dev/null
    else
      apt-get install -y -qq "$pkg" >/dev/null
    fi
  done
}

setup_python() {
  "$PY" -m pip install -q --disable-pip-version-check -e ".[test]"
}

case "${1:-}" in
  setup)
    setup_system; setup_python ;;
  demo)
    setup_system; setup_python
    bundle=${2:-sample-bundles/oom-crashloop}
    k10s analyze "$bundle"
    if k10s report --help >/dev/null 2>&1; then
      k10s report "$bundle" -o k10s-report.html && echo "report: $(pwd)/k10s-report.html"
    fi ;;
  test)
    setup_system; setup_python
    shift
    "$PY" -m pytest -q "$@" ;;
  *)
    echo "usage: ./dev.sh demo|test|setup" >&2; exit 2 ;;
esac
