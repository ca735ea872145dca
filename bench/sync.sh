#!/usr/bin/env bash
# Synchronization cost (issue 4, point 4).
#  1. The convex-hull synchronization of N matched pairs in memory (dev.hetrace.bench.SyncPairs),
#     with -Xmx64m to show that memory stays flat, against generating the same pairs alone.
#  2. End to end: `hetrace sync` on a master and a DSP trace holding N messages (half each way,
#     hetrace_sync events written by the CTF writer), against `hetrace print --format=none` on
#     the same traces (reading them), in the same run.
#
# Usage: bench/sync.sh [--pairs N] [--runs R] [--work DIR]   (defaults: 10000000, 3, /tmp/hetrace-sync-bench)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairs=10000000
runs=3
work=/tmp/hetrace-sync-bench
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) echo "usage: bench/sync.sh [--pairs N] [--runs R] [--work DIR]" >&2; exit 2 ;;
  esac
done
. "$here/.mvn/jdk25.sh"
hetrace_find_jdk25
"$here/hetrace" --version >/dev/null   # builds if needed
(cd "$here" && ./mvnw -B -q -o package -DskipTests -pl ctf,sync,bench >/dev/null)
jar="$here/bench/target/hetrace-bench.jar"
echo "sync benchmark, $pairs pairs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "1. in memory (java -Xmx64m):"
"$JAVA_HOME/bin/java" -Xmx64m -cp "$jar" dev.hetrace.bench.SyncPairs "$pairs"
echo
traces="$work/$pairs"
if [ ! -d "$traces" ]; then
  rm -rf "$work" && mkdir -p "$work"
  "$JAVA_HOME/bin/java" -cp "$jar" dev.hetrace.bench.SyncTraces "$traces" "$pairs"
fi
echo "2. end to end on $traces ($(du -sh "$traces" | cut -f1)):"
for r in $(seq "$runs"); do
  s=$( { /usr/bin/time -f "%e %M" "$here/hetrace" sync "$traces/master" "$traces/dsp" >/dev/null; } 2>&1 | tail -1)
  p=$( { /usr/bin/time -f "%e %M" "$here/hetrace" print --format=none "$traces/master" "$traces/dsp" >/dev/null; } 2>&1 | tail -1)
  set -- $s; st=$1; sm=$2
  set -- $p; pt=$1; pm=$2
  awk -v r="$r" -v st="$st" -v sm="$sm" -v pt="$pt" -v pm="$pm" 'BEGIN {
    printf "run %d: hetrace sync %.2f s (max RSS %d MB), hetrace print --format=none %.2f s (max RSS %d MB): sync/read %.2f\n",
      r, st, sm / 1024, pt, pm / 1024, st / pt }'
done
