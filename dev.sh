#!/usr/bin/env bash
# Developer entry points. Each subcommand sets everything up first, so it works on a fresh clone.
#   ./dev.sh demo [BUNDLE]     set up, then analyze a sample bundle and write its HTML report
#   ./dev.sh test [ARGS]       set up, lint (ruff), then run the whole test suite in parallel
#   ./dev.sh test --quick      the edit loop: the suite less the tests marked slow (about 2 min)
#   ./dev.sh setup             only set up
# Python packages go into the project virtualenv .venv (created with uv when it is on PATH, else
# with `python3 -m venv`); nothing is installed into the system interpreter, so a PEP 668
# "externally managed" Debian/Ubuntu Python works. An existing .venv is reused as it is.
# PYTHON=/path/to/python3 picks the interpreter a new .venv is made from.
# K10S_TEST_WORKERS=N sets the pytest-xdist worker count (default: auto, one per core; 0: none).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
VENV=.venv
VPY=$VENV/bin/python

say() { echo "dev.sh: $*" >&2; }

# tool, Debian package, what skips without it
SYSTEM_TOOLS=(
  "chromium|chromium|the report browser tests (tests/test_report_browser.py, test_fleet_report.py)"
  "pdftoppm|poppler-utils|the printed-report page check"
  "kubectl|kubectl|the kubectl tests of k10s serve and capture"
  "promtool|prometheus|the Prometheus history tests"
  "tmux|tmux|the k10s view real-terminal test"
  "java|default-jre-headless|the Spark fleet engine tests (tests/test_fleet_spark.py)"
  "prometheus-alertmanager|prometheus-alertmanager|the real Alertmanager posting to k10s watch (tests/test_watch_alertmanager.py)"
  "amtool|prometheus-alertmanager|the check of the Alertmanager receiver snippet (tests/test_deploy.py)"
  "libjemalloc.so.2|libjemalloc2|nothing: the test processes then use the C library's malloc (the suite is slower)"
)

# find_lib NAME: the path of a shared library the dynamic linker knows (empty and 1 when none).
find_lib() {
  local path
  path=$( (ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null) | awk -v n="$1" '$1 == n && /x86-64|AArch64|64bit/ {print $NF; exit}')
  [ -n "$path" ] && [ -f "$path" ] && echo "$path"
}

# have TOOL: a command on PATH, or (a name ending in .so.N) a shared library.
have() {
  case "$1" in
    *.so.*) [ -n "$(find_lib "$1")" ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

setup_system() {
  local need=() entry tool pkg what
  for entry in "${SYSTEM_TOOLS[@]}"; do
    IFS='|' read -r tool pkg what <<<"$entry"
    have "$tool" || need+=("$entry")
  done
  [ ${#need[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    for entry in "${need[@]}"; do
      IFS='|' read -r tool pkg what <<<"$entry"
      say "missing $tool (Debian package $pkg): $what will be skipped"
    done
    return 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  for entry in "${need[@]}"; do
    IFS='|' read -r tool pkg what <<<"$entry"
    if [ "$pkg" = kubectl ]; then
      # Debian ships kubectl in package kubernetes-client; some images have a kubectl package.
      apt-get install -y -qq kubectl >/dev/null 2>&1 || apt-get install -y -qq kubernetes-client >/dev/null
    else
      apt-get install -y -qq "$pkg" >/dev/null
    fi
  done
}

make_venv() {
  command -v "$PY" >/dev/null 2>&1 || { say "no $PY found: install Python 3.10 or newer, or set PYTHON=/path/to/python3"; exit 2; }
  if command -v uv >/dev/null 2>&1; then
    uv venv -q --seed --python "$(command -v "$PY")" "$VENV" && return 0
    rm -rf "$VENV"
  fi
  "$PY" -m venv "$VENV" 2>/dev/null && return 0
  rm -rf "$VENV"
  # Debian and Ubuntu ship venv's ensurepip apart from the interpreter (python3-venv).
  local ver
  ver=$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "python$ver-venv" >/dev/null 2>&1 || apt-get install -y -qq python3-venv >/dev/null
    "$PY" -m venv "$VENV" && return 0
  fi
  say "$PY cannot create a virtualenv: install python$ver-venv (Debian/Ubuntu: apt-get install python3-venv) or uv"
  exit 2
}

# setup_python EXTRAS: .venv with the package installed editable (extras: "" or "[test]").
# Skipped when pyproject.toml and the extras are unchanged since the last install.
setup_python() {
  local spec=".$1" stamp="$VENV/.k10s-setup"
  [ -x "$VPY" ] || make_venv
  local want
  want="$spec $(cksum <pyproject.toml)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && "$VPY" -c 'import k10s_forensics' 2>/dev/null; then
    return 0
  fi
  if "$VPY" -m pip --version >/dev/null 2>&1; then
    "$VPY" -m pip install -q --disable-pip-version-check -e "$spec"
  elif command -v uv >/dev/null 2>&1; then
    uv pip install -q --python "$VPY" -e "$spec"
  else
    say "$VENV has no pip and uv is absent: remove $VENV and run again"; exit 2
  fi
  echo "$want" >"$stamp"
  # A .venv with the [test] extras also serves the demo.
  [ "$1" = "[test]" ] && echo ". $(cksum <pyproject.toml)" >"$VENV/.k10s-setup-base"
  return 0
}

setup_demo_python() {
  local base="$VENV/.k10s-setup-base"
  if [ -f "$base" ] && [ "$(cat "$base")" = ". $(cksum <pyproject.toml)" ] && "$VPY" -c 'import k10s_forensics' 2>/dev/null; then
    return 0
  fi
  setup_python ""
  echo ". $(cksum <pyproject.toml)" >"$base"
}

run_tests() {
  local quick=0 args=() a
  for a in "$@"; do
    if [ "$a" = --quick ]; then quick=1; else args+=("$a"); fi
  done
  "$VENV/bin/ruff" check --quiet . || { say "ruff check found problems (fix them, or see [tool.ruff] in pyproject.toml)"; exit 1; }
  if [ $quick = 1 ]; then
    args=(-m "not slow" "${args[@]}")
  fi
  # Bytecode caching on, kept out of the tree (.venv/pycache): with PYTHONDONTWRITEBYTECODE set,
  # every xdist worker and every `k10s` subprocess a test starts would compile the package and
  # pytest would re-rewrite every test module's asserts, on every run.
  unset PYTHONDONTWRITEBYTECODE
  export PYTHONPYCACHEPREFIX="$PWD/$VENV/pycache"
  # The console scripts (k10s, kubectl-k10s) as an activated .venv would have them.
  export PATH="$PWD/$VENV/bin:$PATH"
  # jemalloc in the test processes: DuckDB allocates and frees many small objects per statement,
  # and the C library's malloc spends ~15 % of a small analysis on it (benchmarks/results/test-suite.md,
  # "Session 9"). tests/conftest.py keeps it out of the processes the tests start (Chromium,
  # kubectl, ...) except the determinism kit's analysis servers.
  local malloc
  if malloc=$(find_lib libjemalloc.so.2); then
    export K10S_TEST_MALLOC="$malloc" LD_PRELOAD="$malloc${LD_PRELOAD:+ $LD_PRELOAD}"
  fi
  # numpy (imported by pyarrow and DuckDB, unused by k10s) starts OpenBLAS threads that spin for a
  # while in each of the hundreds of Python processes the suite starts: ~40 ms of CPU each.
  export OPENBLAS_NUM_THREADS=1
  # One DuckDB thread per database: each xdist worker has a core, and DuckDB's default (every core)
  # in each of them only adds contention (docs/architecture.md, "K10S_THREADS"). The determinism
  # twins still compare 1 against 4 threads (explicit --threads wins over K10S_THREADS).
  export K10S_THREADS="${K10S_THREADS:-1}"
  # -p no:benchmark: a pytest-benchmark plugin from the environment only warns under xdist
  exec "$VPY" -m pytest -q -p no:benchmark -n "${K10S_TEST_WORKERS:-auto}" --dist loadgroup "${args[@]}"
}

case "${1:-}" in
  setup)
    setup_system; setup_python "[test]" ;;
  demo)
    setup_system; setup_demo_python
    bundle=${2:-sample-bundles/oom-crashloop}
    "$VENV/bin/k10s" analyze "$bundle"
    "$VENV/bin/k10s" report "$bundle" -o k10s-report.html && echo "report: $(pwd)/k10s-report.html"
    echo "k10s is installed in $VENV: run 'source $VENV/bin/activate' to call k10s directly" ;;
  test)
    shift
    setup_system; setup_python "[test]"
    run_tests "$@" ;;
  *)
    echo "usage: ./dev.sh demo [BUNDLE] | test [--quick] [PYTEST ARGS] | setup" >&2; exit 2 ;;
esac
