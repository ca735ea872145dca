#!/usr/bin/env bash
# Analysis index benchmark: the ways to put a board's events into DuckDB, and the whole index
# build (state model + statistics + every table) against the state model alone, on one core.
#
#   bench/index.sh [--images N] [--rounds R] [BOARD_DIR]
#
# Without BOARD_DIR, writes (once) a simulated board with 'hetrace sim' into
# bench-data/index-N (8 DSPs, every one preempted: about 8,800 events per image). The JVM is
# pinned to one CPU (taskset) and DuckDB runs one thread; each step's time is the CPU time the
# process spent on it (every thread: JIT, GC, DuckDB), so that other work on a shared machine
# does not count. R rounds (default 5), medians; all steps in the same run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
images=60
rounds=5
board=""
while [ $# -gt 0 ]; do
  case "$1" in
    --images) images="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
"${pin[@]}" "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xlog:disable \
  -cp "$here/bench/target/hetrace-bench.jar" dev.hetrace.bench.IndexBench "$rounds" "${traces[@]}"
