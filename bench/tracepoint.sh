#!/usr/bin/env bash
# Tracepoint cost (issue 3, point 4): instructions per event of hetrace's generated tracer
# against barectf 3.1.1's, for the same configuration (bench/tracepoint/config.yaml: a mix of
# three event record types: 4 small integers; 2 x uint64; a string + 2 x uint32) and the same
# application (bench/tracepoint/app.c, through hetrace's callback platform, a counter for a
# clock, a consumer that drops the packets), gcc -O2 on x86-64, counted by valgrind's callgrind
# in the same run.
#
# Usage: bench/tracepoint.sh [ROUNDS]   (default 10000 rounds of the three events)
# Prints, for each tracer: the inclusive instructions of the three tracing functions per call
# (what a tracepoint costs, its clock read and packet switches included), and the whole
# program's instructions per event (ROUNDS rounds minus 0 rounds, the loop included). A third row
# builds hetrace's tracer with the clock read inline (bench/tracepoint/clock.h), which barectf's
# generated code cannot do.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-10000}"
for tool in gcc valgrind callgrind_annotate barectf; do
  command -v "$tool" >/dev/null || { echo "tracepoint.sh: $tool is not installed" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/hetrace" "$work/barectf" "$work/hetrace-inline-clock"
"$here/hetrace" tracer generate --platform callback -o "$work/hetrace" "$here/bench/tracepoint/config.yaml" >/dev/null
(cd "$work/barectf" && barectf generate "$here/bench/tracepoint/config.yaml")
cp "$work/hetrace"/barectf-platform-callback.* "$work/barectf/"
cp "$work/hetrace"/* "$work/hetrace-inline-clock/"
echo "tracepoint cost, $rounds rounds of 3 events, gcc $(gcc -dumpversion) -O2, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| tracer | instructions per tracepoint (inclusive) | program instructions per event |"
echo "|---|---:|---:|"
for t in barectf hetrace hetrace-inline-clock; do
  cd "$work/$t"
  cp "$here/bench/tracepoint/app.c" .
  if [ "$t" = hetrace-inline-clock ]; then
    gcc -std=c99 -O2 -c -include "$here/bench/tracepoint/clock.h" barectf.c
    gcc -std=c99 -O2 -o app barectf.o barectf-platform-callback.c app.c
  else
    gcc -std=c99 -O2 -o app barectf.c barectf-platform-callback.c app.c
  fi
  empty=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null ./app 0 2>&1 | awk '/Collected/ { print $4 }')
  full=$(valgrind --tool=callgrind --callgrind-out-file="$work/$t.cg" ./app "$rounds" 2>&1 | awk '/Collected/ { print $4 }')
  inclusive=$(callgrind_annotate --inclusive=yes "$work/$t.cg" 2>/dev/null \
    | awk '/barectf_default_trace_/ { gsub(",", "", $1); s += $1 } END { print s }')
  awk -v t="$t" -v i="$inclusive" -v e="$empty" -v f="$full" -v n="$rounds" \
    'BEGIN { printf "| %s | %.1f | %.1f |\n", t, i / (3 * n), (f - e) / (3 * n) }'
done
