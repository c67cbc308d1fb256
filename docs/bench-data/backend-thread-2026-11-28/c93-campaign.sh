#!/usr/bin/env bash
# The twenty-fourth session, ninth campaign: the whole suite under the validation layer on one
# H200 at the review's code (468c2a7's behaviour, comments reworded), its whole log kept (c90 kept
# only the summary lines).
set -uo pipefail
OUT=${OUT:-/tmp/out}
OUT=/tmp/tests-out timeout 500 bash scripts/device/gpu-run.sh tests > /tmp/tests.txt 2>&1; echo "tests exit $?"
tail -4 /tmp/tests.txt
cat /tmp/tests.txt /tmp/tests-out/gpu-tests.txt | gzip -c > "$OUT/h200-tests-c93.txt.gz"
