#!/bin/bash
# The ninth set's --no-python entry point: torchrun runs this script itself; bash starts the
# training program as its child (no exec), as many images' entry scripts do.
echo "t9_worker.sh: starting trainer on $(hostname -s 2>/dev/null || echo node) (RANK=${RANK} LOCAL_RANK=${LOCAL_RANK})"
"${K10S_PYTHON:-python3}" "$(dirname "$0")/t9_worker.py" "$@"
