#!/usr/bin/env bash
# Reader benchmark: hetrace print against babeltrace2 on the same trace, in the same run.
#
#   bench/reader.sh [--events N] [--runs R] [--verify] [TRACE_DIR]
#
# Without TRACE_DIR, writes (once) the benchmark trace with hetrace's CTF writer into
# bench-data/reader-N (LTTng-UST layout, 4 streams, ~24 bytes per event). Each run times, in
# turn: babeltrace2 -o dummy, hetrace print --format=none, babeltrace2 > /dev/null and
# hetrace print > /dev/null (hetrace with -Xmx256m), then hetrace both ways on the trace's CTF 2
# twin (TRACE_DIR-ctf2: the stream files linked, the metadata rewritten as CTF 2); the table shows
# the median of the runs and the ratios. --verify also checks that both print the same bytes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
events=40000000
runs=3
verify=0
trace=""
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --verify) verify=1; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) trace="$1"; shift ;;
  esac
done
command -v babeltrace2 >/dev/null || { echo "bench: babeltrace2 is not installed (apt-get install babeltrace2)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
. "$here/.mvn/jdk25.sh"
hetrace_find_jdk25
"$here/hetrace" --version >/dev/null
if [ -z "$trace" ]; then
  trace="$here/bench-data/reader-$events"
  if [ ! -f "$trace/metadata" ]; then
    (cd "$here" && ./mvnw -q -B -o -DskipTests -pl bench -am package 2>/dev/null || ./mvnw -q -B -DskipTests -pl bench -am package)
    "$JAVA_HOME/bin/java" -jar "$here/bench/target/hetrace-bench.jar" "$trace" "$events" 4
  fi
fi
# The CTF 2 twin: the same stream files (linked), the metadata rewritten as CTF 2 by hetrace's writer.
twin="$trace-ctf2"
if [ ! -f "$twin/metadata" ]; then
  (cd "$here" && ./mvnw -q -B -o -DskipTests -pl bench -am package 2>/dev/null || ./mvnw -q -B -DskipTests -pl bench -am package)
  "$JAVA_HOME/bin/java" -cp "$here/bench/target/hetrace-bench.jar" dev.hetrace.bench.Ctf2Twin "$trace" "$twin"
fi
cat "$trace"/* > /dev/null   # page cache: every tool reads from memory
if [ "$trace" = "$here/bench-data/reader-$events" ]; then
  count=$events                # written by the generator with exactly that many events
else
  count=$(HETRACE_JAVA_OPTS=-Xmx256m "$here/hetrace" print --format=json "$trace" | wc -l)
fi
size=$(du -sb "$trace" | cut -f1)
export HETRACE_JAVA_OPTS=-Xmx256m
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
measure() { # name, command...
  local name="$1"; shift
  /usr/bin/time -f "%e %M" -o "$tmp/t" "$@" > /dev/null 2>"$tmp/err" || { echo "bench: $name failed:" >&2; tail -3 "$tmp/err" >&2; exit 1; }
  echo "$name $(cat "$tmp/t")" >> "$tmp/all"
}
for r in $(seq "$runs"); do
  measure bt2_dummy babeltrace2 -o dummy "$trace"
  measure het_none "$here/hetrace" print --format=none "$trace"
  measure bt2_text sh -c "babeltrace2 '$trace' > /dev/null"
  measure het_text sh -c "'$here/hetrace' print '$trace' > /dev/null"
  measure het_none2 "$here/hetrace" print --format=none "$twin"
  measure het_text2 sh -c "'$here/hetrace' print '$twin' > /dev/null"
done
median() { grep "^$1 " "$tmp/all" | awk '{print $2}' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
maxrss() { grep "^$1 " "$tmp/all" | awk '{print $3}' | sort -g | tail -1; }
bd=$(median bt2_dummy); hn=$(median het_none); bt=$(median bt2_text); ht=$(median het_text)
echo "trace: $trace ($count events, $((size / 1000000)) MB), $runs runs, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| command | median s | events/s | peak RSS MB |"
echo "|---|---:|---:|---:|"
for k in bt2_dummy het_none bt2_text het_text het_none2 het_text2; do
  m=$(median $k)
  case $k in
    bt2_dummy) label='`babeltrace2 -o dummy`' ;;
    het_none) label='`hetrace print --format=none` (-Xmx256m)' ;;
    bt2_text) label='`babeltrace2 > /dev/null`' ;;
    het_text) label='`hetrace print > /dev/null` (-Xmx256m)' ;;
    het_none2) label='CTF 2 twin: `hetrace print --format=none` (-Xmx256m)' ;;
    het_text2) label='CTF 2 twin: `hetrace print > /dev/null` (-Xmx256m)' ;;
  esac
  echo "| $label | $m | $(awk -v c="$count" -v s="$m" 'BEGIN {printf "%.2fM", c / s / 1e6}') | $(( $(maxrss $k) / 1024 )) |"
done
echo
hn2=$(median het_none2); ht2=$(median het_text2)
echo "CTF 2 twin time / CTF 1.8 time: --format=none $(awk -v a="$hn2" -v b="$hn" 'BEGIN {printf "%.3f", a / b}'), text $(awk -v a="$ht2" -v b="$ht" 'BEGIN {printf "%.3f", a / b}')"
echo "speed ratio hetrace/babeltrace2: --format=none vs -o dummy $(awk -v a="$bd" -v b="$hn" 'BEGIN {printf "%.1f", a / b}'), text vs text $(awk -v a="$bt" -v b="$ht" 'BEGIN {printf "%.1f", a / b}')"
if [ "$verify" = 1 ]; then
  a=$(TZ=UTC babeltrace2 "$trace" | md5sum | cut -d' ' -f1)
  b=$(TZ=UTC "$here/hetrace" print "$trace" | md5sum | cut -d' ' -f1)
  [ "$a" = "$b" ] && echo "verify: identical text ($a)" || { echo "verify: OUTPUTS DIFFER ($a vs $b)"; exit 1; }
  c=$(TZ=UTC "$here/hetrace" print "$twin" | md5sum | cut -d' ' -f1)
  [ "$c" = "$b" ] && echo "verify: the CTF 2 twin prints the same text" || { echo "verify: CTF 2 TWIN DIFFERS ($c vs $b)"; exit 1; }
fi
