#!/usr/bin/env bash
# The twenty-fourth session, seventh campaign: the large room and traffic on one H200 with
# 91ba1f3's bundle (468c2a7's code) against 07c793d's build, three repeats (nothing but the
# start-up should move).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c87.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-07c793d NEW_DEVICES=0 OLD_DEVICES=0 SCENES=large-room,traffic bash scripts/device/two-gpus-ab.sh > /tmp/c91.txt 2>&1
grep -v "^\[" /tmp/c91.txt > "$OUT/c91.txt"
tar czf "$OUT/c91-logs.tgz" -C "$OUT" $(cd "$OUT" && ls mg-*.log) && rm -f "$OUT"/mg-*.log
