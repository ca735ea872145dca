#!/usr/bin/env bash
# `hetrace export --format perfetto` against `hetrace export --parquet` on the same store: both
# read the board's index (built once, before the rounds, in a cache folder of the run's own), as
# a user types them, in turn, round after round, so that the machine's slow minutes fall on both;
# per command the median of the rounds' wall and CPU time (user + sys, all threads), the ratio of
# the Perfetto export to the Parquet one (at most 2 is the aim), and the Perfetto file's size.
#
# The board: a simulated one of 1,024 cores, every slave preempted (bench-data/perfetto-board,
# simulated when absent: about 7 M events); any board or trace folder may be given instead.
#
# Usage: bench/perfetto.sh [--rounds N] [BOARD]   (default: 3 rounds)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=3
if [ "${1:-}" = --rounds ]; then rounds="$2"; shift 2; fi
board="${1:-$here/bench-data/perfetto-board}"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
if [ ! -d "$board" ]; then
  cores=$(seq -s, -f 'dsp%g' 1 1023)
  "$here/hetrace" sim --cores 1024 --images 20 --image-period 100ms --inject "preempt:$cores" --out "$board" >&2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
events="$("$here/hetrace" query --cache "$work/cache" --format csv "$board" 'select count(*) from events' 2>/dev/null | tail -1)"
echo "perfetto export benchmark, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "board: $board ($(du -sh "$board" | cut -f1), $events events), index kept, $rounds rounds"
commands=(parquet perfetto)
for r in $(seq "$rounds"); do
  for c in "${commands[@]}"; do
    rm -rf "$work/out" "$work/board.pftrace"
    case "$c" in
      parquet) args=(export --cache "$work/cache" --parquet "$work/out" "$board") ;;
      perfetto) args=(export --cache "$work/cache" --format perfetto -o "$work/board.pftrace" "$board") ;;
    esac
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$here/hetrace" "${args[@]}" >"$work/said" 2>"$work/err" \
      || { echo "bench: hetrace $c failed:" >&2; cat "$work/err" >&2; exit 1; }
    read -r wall user sys rss < "$work/time"
    echo "$c $wall $(echo "$user + $sys" | bc) $rss" >> "$work/all"
    [ "$c" = perfetto ] && cp "$work/said" "$work/perfetto-said"
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
p_wall="$(awk '$1 == "parquet" {print $2}' "$work/all" | median)"
p_cpu="$(awk '$1 == "parquet" {print $3}' "$work/all" | median)"
printf '%-9s %10s %10s %10s %10s %10s\n' export "wall s" "x parquet" "cpu s" "x parquet" "max RSS MB"
for c in "${commands[@]}"; do
  wall="$(awk -v c="$c" '$1 == c {print $2}' "$work/all" | median)"
  cpu="$(awk -v c="$c" '$1 == c {print $3}' "$work/all" | median)"
  rss="$(awk -v c="$c" '$1 == c {print $4}' "$work/all" | sort -n | tail -1)"
  printf '%-9s %10.2f %10.2f %10.2f %10.2f %10d\n' "$c" "$wall" "$(echo "$wall / $p_wall" | bc -l)" "$cpu" \
    "$(echo "$cpu / $p_cpu" | bc -l)" "$((rss / 1024))"
done
echo "perfetto: $(cat "$work/perfetto-said")"
