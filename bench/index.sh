#!/usr/bin/env bash
# Analysis index benchmark: the steps of the index build, and the whole build (state model +
# statistics + every table) against the state model alone, on one core.
#
#   bench/index.sh [--images N] [--rounds R] [--one-jvm] [BOARD_DIR]
#
# Without BOARD_DIR, writes (once) a simulated board with 'hetrace sim' into
# bench-data/index-N (8 DSPs, every one preempted: about 8,800 events per image). The JVM is
# pinned to one CPU (taskset) and DuckDB runs one thread; each step's time is the CPU time the
# process spent on it (every thread: JIT, GC, DuckDB), so that other work on a shared machine
# does not count. Each step runs in a JVM of its own (--one-jvm: every step in one JVM, in
# turn), R rounds (default 7), medians of all but the first two (the JIT warms up).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
images=60
rounds=7
board=""
one=0
while [ $# -gt 0 ]; do
  case "$1" in
    --images) images="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --one-jvm) one=1; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) board="$1"; shift ;;
  esac
done
. "$here/.mvn/jdk25.sh"
hetrace_find_jdk25
if [ -z "$board" ]; then
  board="$here/bench-data/index-$images"
  if [ ! -f "$board/ground-truth.json" ]; then
    "$here/hetrace" sim --cores 8 --images "$images" --seed 3 \
      --inject preempt:dsp0,dsp1,dsp2,dsp3,dsp4,dsp5,dsp6,dsp7 --out "$board" >&2
  fi
fi
(cd "$here" && ./mvnw -q -B -o -DskipTests -pl bench -am package 2>/dev/null || ./mvnw -q -B -DskipTests -pl bench -am package)
cat "$board"/*/* > /dev/null   # page cache: every step reads from memory
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
traces=("$board/master")
for d in "$board"/dsp*; do traces+=("$d"); done
run() {
  "${pin[@]}" "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xlog:disable \
    -cp "$here/bench/target/hetrace-bench.jar" dev.hetrace.bench.IndexBench "$@" "$rounds" "${traces[@]}"
}
if [ "$one" = 1 ]; then
  run
  exit 0
fi
for step in 0 1 2 3 4 5 6 7; do
  out=$(run --step "$step" 2>/dev/null)
  if [ "$step" = 0 ]; then
    printf '%s\n' "$out" | sed -n '1,4p'
  fi
  printf '%s\n' "$out" | tail -n 1
done
