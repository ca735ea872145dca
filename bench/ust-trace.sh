#!/usr/bin/env bash
# A real LTTng-UST trace of about 2 M events, for the analyses' speed on user-space traces
# (`hetrace diagnose`, `report` and `export --parquet` against `hetrace stats` on the same trace).
#
# Records bench/ust/workload.c (a dispatcher, four workers and a collector passing requests
# through two queues; short, medium and a few long calls, 12 compute outliers and 2 sleeps in
# flush at the default size) with function tracing through liblttng-ust-cyg-profile (or -fast)
# and its tracepoints app:msg_send / app:msg_recv (fields queue, id), with the vtid, vpid and
# procname contexts. A private session daemon (its own LTTNG_HOME; run as nobody when the script
# runs as root, since a root daemon takes the machine's one /var/run/lttng) records into a
# blocking channel (the program waits rather than lose an event). The event count depends on N
# only: 2 per call and 1 per tracepoint; the script checks with babeltrace2 that the trace holds
# exactly the events the program says it made (besides the state dump's few) and that nothing
# was discarded, and says so.
# The session also records LTTng-UST's state dump (lttng_ust_statedump:*: the program's and its
# libraries' load addresses, paths and build ids), so that hetrace names the functions after the
# program's symbols: the program is kept beside the trace, in OUT.program/workload, where the
# trace says it ran. The messages are mapped by
# analysis/src/test/resources/ust/ust-workers.yaml (`--mapping`), which also maps the calls
# (those of liblttng-ust-cyg-profile; not those of -fast).
#
# Usage: bench/ust-trace.sh [--requests N] [--fast] OUT
#   OUT        the trace directory to write (metadata and streams); must not exist, nor OUT.program
#   --requests 64000 by default: 1,984,028 events
#   --fast     liblttng-ust-cyg-profile-fast (entries without call sites, exits without addresses)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
requests=64000
helper=liblttng-ust-cyg-profile
while [ $# -gt 1 ]; do
  case "$1" in
    --requests) requests="$2"; shift 2 ;;
    --fast) helper=liblttng-ust-cyg-profile-fast; shift ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { echo "usage: bench/ust-trace.sh [--requests N] [--fast] OUT" >&2; exit 2; }
out="$1"
[ ! -e "$out" ] || { echo "ust-trace.sh: $out exists" >&2; exit 1; }
bindir="${out%/}.program"
[ ! -e "$bindir" ] || { echo "ust-trace.sh: $bindir exists" >&2; exit 1; }
for tool in gcc lttng lttng-sessiond babeltrace2; do
  command -v "$tool" >/dev/null || { echo "ust-trace.sh: $tool is not installed (apt-get install gcc lttng-tools liblttng-ust-dev babeltrace2)" >&2; exit 1; }
done
lib=""
for f in /usr/lib/*/"$helper.so" /usr/lib/"$helper.so" /usr/lib64/"$helper.so"; do
  [ -f "$f" ] && { lib="$f"; break; }
done
[ -n "$lib" ] || { echo "ust-trace.sh: $helper.so not found (apt-get install liblttng-ust-dev)" >&2; exit 1; }
provider="$here/analysis/src/test/resources/ust"

work="$(mktemp -d)"
chmod 755 "$work"
as=()
if [ "$(id -u)" = 0 ]; then
  as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
export LTTNG_HOME="$work/home"
mkdir -p "$LTTNG_HOME" "$work/run"
[ ${#as[@]} -eq 0 ] || chown 65534:65534 "$LTTNG_HOME" "$work/run"
daemon=""
cleanup() {
  if [ -n "$daemon" ]; then
    kill "$daemon" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT
lttng() { "${as[@]}" env HOME="$LTTNG_HOME" lttng --no-sessiond --quiet "$@"; }

gcc -O2 -c -I"$provider" "$provider/app_tp.c" -o "$work/app_tp.o"
mkdir -p "$bindir"
bindir="$(cd "$bindir" && pwd)"
chmod 755 "$bindir"
gcc -O2 -finstrument-functions -I"$provider" "$here/bench/ust/workload.c" "$work/app_tp.o" \
  -o "$bindir/workload" -pthread -llttng-ust -ldl

"${as[@]}" env HOME="$LTTNG_HOME" lttng-sessiond --daemonize
daemon=$(cat "$LTTNG_HOME/.lttng/lttng-sessiond.pid")
lttng create bench --output="$work/run/trace"
lttng enable-channel --userspace --blocking-timeout=inf --subbuf-size=4M --num-subbuf=8 channel0
lttng enable-event --userspace --channel=channel0 "$(tr - _ <<<"${helper#lib}"):*"
lttng enable-event --userspace --channel=channel0 app:msg_send
lttng enable-event --userspace --channel=channel0 app:msg_recv
lttng enable-event --userspace --channel=channel0 'lttng_ust_statedump:*'
lttng add-context --userspace --channel=channel0 --type=vtid --type=vpid --type=procname
lttng start bench
start=$(date +%s.%N)
made=$(cd "$work/run" && "${as[@]}" env LTTNG_UST_ALLOW_BLOCKING=1 LTTNG_UST_REGISTER_TIMEOUT=-1 \
  LD_PRELOAD="$lib" "$bindir/workload" "$requests" | awk '/^events / { print $2 }')
end=$(date +%s.%N)
lttng stop bench
lttng destroy bench

trace=$(dirname "$(find "$work/run/trace" -name metadata | head -1)")
counts=$(babeltrace2 -c sink.utils.counter -p step=+0 "$trace")
recorded=$(awk '/Event messages/ { print $1 }' <<<"$counts")
lost=$(awk '/Discarded (event|packet) messages/ { s += $1 } END { print s + 0 }' <<<"$counts")
# the state dump's events are the tracer's, not the program's
dump=$(babeltrace2 "$trace" | grep -c ' lttng_ust_statedump:' || true)
recorded=$((recorded - dump))
if [ "$recorded" != "$made" ] || [ "$lost" != 0 ]; then
  echo "ust-trace.sh: the program made $made events, the trace holds $recorded, with $lost discard messages" >&2
  exit 1
fi
mkdir -p "$(dirname "$out")"
mv "$trace" "$out"
[ ${#as[@]} -eq 0 ] || chown -R "$(id -u):$(id -g)" "$out"
awk -v n="$recorded" -v r="$requests" -v t="$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" -v o="$out" \
  -v s="$(du -sh "$out" | cut -f1)" -v h="$helper" 'BEGIN {
  printf "%s: %d events (%s, %d requests, recorded in %.1f s, %s), as many as the program made; none lost\n", o, n, h, r, t, s }'
