#!/usr/bin/env bash
# State model and statistics speed (issue 6, point 3).
#  1. In process, one thread (dev.hetrace.bench.StateRate): the state pass (StateBuilder.build,
#     decoding included) and the statistics on a simulated board, against reading the same
#     traces with the same sequential reader on the same thread, in the same rounds; medians of
#     the rounds after the warm-up half, in wall time and in the thread's CPU time.
#  2. End to end: `hetrace stats` on a board of >= 30 M events (synchronization, state,
#     statistics, JVM start), against `hetrace print --format=none` on the same traces, in the
#     same runs, with wall time and peak RSS.
# The boards are `hetrace sim` boards (a Linux master and 8 DSPs, every DSP preempted, so that
# there are task switches, calls, interrupts and messages on every core), written once into
# bench-data/.
#
# Usage: bench/state.sh [--runs R] [--rounds N] [--images N]   (defaults: 3, 10, 14000)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=3
rounds=10
images=14000
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --images) images="$2"; shift 2 ;;
    *) echo "usage: bench/state.sh [--runs R] [--rounds N] [--images N]" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
. "$here/.mvn/jdk25.sh"
hetrace_find_jdk25
"$here/hetrace" --version >/dev/null   # builds if needed
(cd "$here" && ./mvnw -B -q -o package -DskipTests -pl bench -am >/dev/null 2>&1)
jar="$here/bench/target/hetrace-bench.jar"
faults="--inject preempt:dsp0,dsp1,dsp2,dsp3,dsp4,dsp5,dsp6,dsp7"
small="$here/bench-data/state-500"
big="$here/bench-data/state-$images"
[ -f "$small/master/metadata" ] || "$here/hetrace" sim --images 500 --image-period 100ms $faults --out "$small" >&2
[ -f "$big/master/metadata" ] || HETRACE_JAVA_OPTS=-Xmx8g "$here/hetrace" sim --images "$images" --image-period 100ms $faults --out "$big" >&2
echo "state benchmark, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "1. in process, one thread, $small ($(du -sh --exclude=ground-truth.json "$small" | cut -f1)):"
"$JAVA_HOME/bin/java" -cp "$jar" dev.hetrace.bench.StateRate --rounds "$rounds" "$small/master" "$small"/dsp? | sed -n '/^synchronize: /p;/events, .* intervals/,$p'
echo
cat "$big"/master/* "$big"/dsp?/* > /dev/null   # page cache: both commands read from memory
echo "2. end to end on $big ($(du -sh --exclude=ground-truth.json "$big" | cut -f1) of traces), $runs runs:"
for r in $(seq "$runs"); do
  s=$( { /usr/bin/time -f "%e %M" "$here/hetrace" stats "$big/master" "$big"/dsp? >/dev/null; } 2>&1 | tail -1)
  p=$( { /usr/bin/time -f "%e %M" "$here/hetrace" print --format=none "$big/master" "$big"/dsp? >/dev/null; } 2>&1 | tail -1)
  set -- $s; st=$1; sm=$2
  set -- $p; pt=$1; pm=$2
  awk -v r="$r" -v st="$st" -v sm="$sm" -v pt="$pt" -v pm="$pm" -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
    printf "run %d (load %s): hetrace stats %.2f s (max RSS %d MB), hetrace print --format=none %.2f s (max RSS %d MB): stats/print %.2f\n",
      r, l, st, sm / 1024, pt, pm / 1024, st / pt }'
done
