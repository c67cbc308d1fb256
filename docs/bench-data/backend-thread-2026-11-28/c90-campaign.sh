#!/usr/bin/env bash
# The twenty-fourth session, sixth campaign: the whole suite under the validation layer at
# 91ba1f3 (468c2a7's code) on one H200.
set -uo pipefail
OUT=${OUT:-/tmp/out}
OUT=/tmp/tests-out timeout 500 bash scripts/device/gpu-run.sh tests > /tmp/tests.txt 2>&1; echo "tests exit $?"
tail -6 /tmp/tests.txt
gzip -c /tmp/tests.txt > "$OUT/h200-tests-c90.txt.gz"
