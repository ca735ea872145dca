#!/usr/bin/env bash
# Events' fields on a real trace: what reading one event's fields costs where it sits in its
# packet, and `hetrace export --parquet` (every table, every event's fields) against `hetrace
# stats` on the same trace.
#
#   bench/fields.sh [--runs R] [--rounds N] TRACE
#
#  1. In process, one thread (dev.hetrace.bench.FieldsBench, N rounds, default 7): the fields of
#     the first and of the last event of the trace's largest packet, each found by its position
#     as the index's hetrace_fields finds it, against the last decoded from the packet's start
#     (how positions were read before they kept the event's offset), every event read in order
#     and every event found by its position in the index's order; thread CPU time per event.
#  2. End to end, R runs (default 5), alternately: `hetrace stats TRACE`, then `hetrace export
#     --parquet DIR TRACE` with an empty index cache (the index is built in the run, as by a first
#     export), then the export again with the index kept; wall and CPU (user + sys) time of each
#     and the ratios to stats in the same run.
#
# TRACE: e.g. a 2 M-event LTTng-UST trace (bench/ust-trace.sh) or a kernel trace of the corpus.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=5
rounds=7
while [ $# -gt 1 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
trace="$1"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
. "$here/.mvn/jdk25.sh"
hetrace_find_jdk25
"$here/hetrace" --version >/dev/null   # builds the CLI (and its start-up cache) if needed
(cd "$here" && ./mvnw -B -q -o package -DskipTests -pl bench -am >/dev/null 2>&1)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat "$trace"/* "$trace"/*/* > /dev/null 2>&1 || true   # page cache: every step reads from memory
echo "fields benchmark, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "1. in process, one thread:"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$here/bench/target/hetrace-bench.jar" \
  dev.hetrace.bench.FieldsBench "$rounds" "$trace" 2>/dev/null
echo
echo "2. end to end, $runs runs (wall s / CPU s):"
echo
echo "| run | load | stats | export, index built | ratio wall, CPU | export, index kept | ratio wall, CPU |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
timed() { # wall, user and sys seconds of a command, its output dropped
  /usr/bin/time -f "%e %U %S" "$@" >/dev/null 2>"$work/err"
  tail -1 "$work/err"
}
for r in $(seq "$runs"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  s=$(HETRACE_CACHE="$work/cache" timed "$here/hetrace" stats "$trace")
  rm -rf "$work/cache" "$work/out"
  c=$(HETRACE_CACHE="$work/cache" timed "$here/hetrace" export --parquet "$work/out" "$trace")
  w=$(HETRACE_CACHE="$work/cache" timed "$here/hetrace" export --parquet "$work/out" "$trace")
  awk -v r="$r" -v l="$load" -v s="$s" -v c="$c" -v w="$w" 'BEGIN {
    split(s, a, " "); split(c, b, " "); split(w, d, " ")
    sc = a[2] + a[3]; cc = b[2] + b[3]; wc = d[2] + d[3]
    printf "| %d | %s | %.2f / %.2f | %.2f / %.2f | %.2f, %.2f | %.2f / %.2f | %.2f, %.2f |\n",
      r, l, a[1], sc, b[1], cc, b[1] / a[1], cc / sc, d[1], wc, d[1] / a[1], wc / sc }'
done
