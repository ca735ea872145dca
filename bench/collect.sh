#!/usr/bin/env bash
# Collector throughput (issue 3, point 5): how fast `hetrace collect` drains shm-ring regions
# filled by producer processes, against what a plain copy of the same bytes achieves on this
# machine, in the same run.
#
#   bench/collect.sh [--producers P] [--total BYTES] [--packet BYTES] [--slots N]
#                    [--runs R] [--out DIR] [--threads N] [--prefill] [--verify]
#
# The producers (bench/collect/producer.c, gcc -O2, against a tracer generated with
# --platform shm-ring from bench/collect/config.yaml) each create a region in /dev/shm and
# publish copies of one ready-made CTF packet (times and sequence number patched per copy)
# as fast as the ring allows, waiting while it is full: nothing is dropped. Each run:
#   1. raw copy: P files of TOTAL/P bytes in /dev/shm copied one after the other with `cp`
#      into DIR (one thread, in-kernel copy: what one core can write into DIR);
#   2. collector: `hetrace collect --wait --shm ... --metadata ... -o DIR/trace` is started, then
#      (1 s later, the JVM up) the P producers; the time is from the producers' start to
#      the collector's exit. With --prefill the producers fill rings that hold all their
#      packets before the collector sees them (each region is renamed into place when full)
#      and the time is from the renames to the collector's exit: the drain alone.
#   then checks the collector's summary (every packet, 0 events discarded, 0 slots refused) and the stream
#   files' sizes, and deletes the outputs (sync).
# --verify, after the last run, reads the whole trace with `hetrace print --format=none` and
# a prefix of every stream (64 packets) with babeltrace2 and hetrace, comparing event counts.
# Defaults: 8 producers, 2 GiB in all, 64 KiB packets, 64 slots per ring, 3 runs,
# DIR=/tmp/hetrace-bench-collect, the collector's default threads (--threads N passes N to
# it). GB/s are 10^9 bytes per second; medians over the runs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
producers=8
# 2 GiB: what the page cache of this 23 GB machine takes before writeback to the disk starts
# (vm.dirty_background_ratio 10%); more measures the kernel's writeback as much as the collector
total=$((2 << 30))
packet=65536
slots=64
runs=3
out=/tmp/hetrace-bench-collect
prefill=0
verify=0
threads=()
while [ $# -gt 0 ]; do
  case "$1" in
    --producers) producers="$2"; shift 2 ;;
    --total) total="$2"; shift 2 ;;
    --packet) packet="$2"; shift 2 ;;
    --slots) slots="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --threads) threads=(--threads "$2"); shift 2 ;;
    --prefill) prefill=1; shift ;;
    --verify) verify=1; shift ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "collect.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for tool in gcc /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "collect.sh: $tool is not installed" >&2; exit 1; }
done
[ "$verify" = 0 ] || command -v babeltrace2 >/dev/null || { echo "collect.sh: --verify needs babeltrace2" >&2; exit 1; }
per=$((total / producers / packet))   # packets per producer
[ "$per" -gt 0 ] || { echo "collect.sh: --total too small for $producers producers of $packet-byte packets" >&2; exit 2; }
[ "$prefill" = 0 ] || slots=$per
bytes=$((per * packet * producers))
"$here/hetrace" --version >/dev/null
work="$(mktemp -d)"
shm=/dev/shm/hetrace-bench-collect-$$
cleanup() {
  [ -z "$(jobs -p)" ] || kill $(jobs -p) 2>/dev/null || true
  rm -rf "$work" "$out"
  rm -f "$shm"-*
}
trap cleanup EXIT
"$here/hetrace" tracer generate --platform shm-ring -o "$work" "$here/bench/collect/config.yaml" >/dev/null
(cd "$work" && gcc -std=c99 -Wall -Wextra -O2 -o producer hc.c hc-platform-shm-ring.c hc-shm-ring-linux.c \
  "$here/bench/collect/producer.c" -I.)
mkdir -p "$out"
regions=()
for i in $(seq 0 $((producers - 1))); do regions+=("$shm-core$i"); done
now() { date +%s.%N; }
load1() { cut -d' ' -f1 /proc/loadavg; }
fs="$(df -T "$out" | awk 'NR == 2 { print $2 " on " $1 }')"

# This machine is a VM that hands freed memory back to its host (free page reporting): the
# first write into memory freed a few seconds earlier costs a host page fault per page and
# can take several times as long as the copy itself. Before each timed step, the same number
# of bytes is written to DIR and deleted, so that both steps write into memory the VM holds.
warm_up() {
  head -c "$bytes" /dev/zero > "$out/warm"
  rm -f "$out/warm"
}

raw_copy() { # writes seconds to $work/raw
  local i t0 t1
  for i in $(seq 0 $((producers - 1))); do head -c $((per * packet)) /dev/zero > "$shm-raw$i"; done
  sync
  warm_up
  t0=$(now)
  for i in $(seq 0 $((producers - 1))); do cp "$shm-raw$i" "$out/raw$i"; done
  t1=$(now)
  rm -f "$shm"-raw* "$out"/raw*
  sync
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' > "$work/raw"
}

collect() { # writes "seconds collector_cpu_user collector_cpu_sys waits" to $work/collect
  local i r p t0 t1 pids=() suffix=""
  rm -f "$shm"-core* "$work"/producer*.out
  rm -rf "$out/trace"
  [ "$prefill" = 0 ] || suffix=.filling
  if [ "$prefill" = 1 ]; then
    for i in $(seq 0 $((producers - 1))); do
      "$work/producer" "${regions[$i]}$suffix" "$i" "$packet" "$slots" "$per" > "$work/producer$i.out" &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    pids=()
  fi
  warm_up
  /usr/bin/time -f "%U %S" -o "$work/collector.time" "$here/hetrace" collect --wait --shm "${regions[@]}" \
    --metadata "$work/metadata" "${threads[@]}" -o "$out/trace" > "$work/collector.out" 2>&1 &
  local collector=$!
  sleep 1
  t0=$(now)
  if [ "$prefill" = 1 ]; then
    for r in "${regions[@]}"; do mv "$r$suffix" "$r"; done
  else
    for i in $(seq 0 $((producers - 1))); do
      "$work/producer" "${regions[$i]}" "$i" "$packet" "$slots" "$per" > "$work/producer$i.out" &
      pids+=($!)
    done
  fi
  wait "$collector" || { echo "collect.sh: hetrace collect failed:" >&2; cat "$work/collector.out" >&2; exit 1; }
  t1=$(now)
  for p in "${pids[@]}"; do wait "$p" || { echo "collect.sh: a producer failed" >&2; exit 1; }; done
  # every packet written, none lost
  local lines
  lines=$(grep -c ": $per packets, $((per * packet)) bytes, 0 events discarded, 0 slots refused$" "$work/collector.out" || true)
  if [ "$lines" != "$producers" ]; then
    echo "collect.sh: the collector did not drain every packet:" >&2; cat "$work/collector.out" >&2; exit 1
  fi
  for r in "${regions[@]}"; do
    local f="$out/trace/$(basename "$r")"
    [ "$(stat -c %s "$f")" = $((per * packet)) ] || { echo "collect.sh: $f: $(stat -c %s "$f") bytes, expected $((per * packet))" >&2; exit 1; }
  done
  awk -v a="$t0" -v b="$t1" -v cpu="$(cat "$work/collector.time")" \
    -v w="$(cat "$work"/producer*.out | awk '{ s += $(NF - 4) } END { print s }')" \
    'BEGIN { printf "%.3f %s %d\n", b - a, cpu, w }' > "$work/collect"
}

verify_trace() {
  local r err="$work/verify.err" sub="$work/prefix" n_het n_bt
  echo
  echo "verify: hetrace print --format=none on the whole trace ($((bytes / 1000000)) MB)"
  "$here/hetrace" print --format=none "$out/trace" 2> "$err" || { echo "verify: hetrace print failed:"; cat "$err"; exit 1; }
  [ ! -s "$err" ] || { echo "verify: hetrace print warned:"; cat "$err"; exit 1; }
  mkdir -p "$sub"
  cp "$out/trace/metadata" "$sub/"
  local k=$((per < 64 ? per : 64))
  for r in "${regions[@]}"; do head -c $((k * packet)) "$out/trace/$(basename "$r")" > "$sub/$(basename "$r")"; done
  n_het=$("$here/hetrace" print "$sub" | wc -l)
  n_bt=$(babeltrace2 "$sub" | wc -l)
  babeltrace2 -o dummy "$sub"
  echo "verify: first $k packets of each stream: hetrace $n_het events, babeltrace2 $n_bt events"
  [ "$n_het" = "$n_bt" ] && [ "$n_het" -gt 0 ] || { echo "verify: EVENT COUNTS DIFFER"; exit 1; }
  echo "verify: ok (exit 0, no warnings; same events)"
}

mode="producers and collector together, $slots slots per ring"
[ "$prefill" = 0 ] || mode="prefilled rings (drain alone: the producers filled rings of $slots slots before the collector saw them)"
echo "collector throughput: $producers producers x $per packets of $packet bytes = $bytes bytes; $mode; collector ${threads[*]:-with its default threads}"
echo "output: $out ($fs); $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| run | load (1 min) | collect s | collect GB/s | collector CPU user+sys s | producer sleeps | raw copy s | raw copy GB/s | collect / raw |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for r in $(seq "$runs"); do
  l=$(load1)
  raw_copy
  read -r raw < "$work/raw"
  collect
  read -r secs cu cs waits < "$work/collect"
  echo "$r $l $secs $cu $cs $waits $raw" >> "$work/all"
  awk -v r="$r" -v l="$l" -v s="$secs" -v cu="$cu" -v cs="$cs" -v w="$waits" -v raw="$raw" -v b="$bytes" \
    'BEGIN { printf "| %d | %s | %.2f | %.2f | %.1f + %.1f | %d | %.2f | %.2f | %.2f |\n", r, l, s, b / s / 1e9, cu, cs, w, raw, b / raw / 1e9, raw / s }'
  if [ "$r" != "$runs" ] || [ "$verify" = 0 ]; then
    rm -rf "$out/trace"
    sync
  fi
done
median() { awk -v c="$1" '{ print $c }' "$work/all" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ms=$(median 3); mr=$(median 7)
echo
awk -v s="$ms" -v raw="$mr" -v b="$bytes" 'BEGIN {
  printf "median: collect %.2f s = %.2f GB/s; raw copy %.2f s = %.2f GB/s; collect / raw %.2f; 1 GB/s %s\n",
    s, b / s / 1e9, raw, b / raw / 1e9, raw / s, (b / s / 1e9 >= 1 ? "met" : "NOT met") }'
[ "$verify" = 0 ] || verify_trace
