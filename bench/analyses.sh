#!/usr/bin/env bash
# The analyses on a real LTTng-UST trace of about 2 M events, against `hetrace stats` on the same
# trace in the same rounds: `hetrace diagnose`, `hetrace report` and `hetrace export --parquet`
# (each export builds its index anew in an empty cache folder, as a first export does) must each
# take at most 3 times what `stats` takes. The commands run as a user types them (the launcher,
# its start-up cache recorded beforehand), in turn, round after round, so that the machine's
# slow minutes fall on all of them; per command the median of the rounds' CPU time (user + sys,
# all threads) and wall time, and the ratios to stats' medians.
#
# The trace is bench/ust-trace.sh's (recorded into bench-data/ust-2m when absent), read with the
# mapping that links its messages (analysis/src/test/resources/ust/ust-workers.yaml).
#
# Usage: bench/analyses.sh [--rounds N] [TRACE [MAPPING]]   (default: 5 rounds)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=5
if [ "${1:-}" = --rounds ]; then rounds="$2"; shift 2; fi
trace="${1:-$here/bench-data/ust-2m}"
mapping="${2:-$here/analysis/src/test/resources/ust/ust-workers.yaml}"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
[ -f "$trace/metadata" ] || "$here/bench/ust-trace.sh" "$trace" >&2
"$here/hetrace" stats --mapping "$mapping" "$trace" >/dev/null 2>&1   # builds and records the start-up cache once
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
commands=(stats diagnose report export)
echo "analyses benchmark, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "trace: $trace ($(du -sh "$trace" | cut -f1)), $rounds rounds"
for r in $(seq "$rounds"); do
  for c in "${commands[@]}"; do
    rm -rf "$work/out" "$work/cache" "$work/report.html"
    case "$c" in
      stats) args=(stats --mapping "$mapping" "$trace") ;;
      diagnose) args=(diagnose --mapping "$mapping" "$trace") ;;
      report) args=(report -o "$work/report.html" --mapping "$mapping" "$trace") ;;
      export) args=(export --cache "$work/cache" --parquet "$work/out" --mapping "$mapping" "$trace") ;;
    esac
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$here/hetrace" "${args[@]}" >/dev/null 2>"$work/err" \
      || { echo "bench: hetrace $c failed:" >&2; cat "$work/err" >&2; exit 1; }
    read -r wall user sys < "$work/time"
    echo "$c $wall $(echo "$user + $sys" | bc)" >> "$work/all"
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
stats_cpu="$(awk '$1 == "stats" {print $3}' "$work/all" | median)"
stats_wall="$(awk '$1 == "stats" {print $2}' "$work/all" | median)"
printf '%-9s %10s %8s %10s %8s\n' command "cpu s" "x stats" "wall s" "x stats"
for c in "${commands[@]}"; do
  cpu="$(awk -v c="$c" '$1 == c {print $3}' "$work/all" | median)"
  wall="$(awk -v c="$c" '$1 == c {print $2}' "$work/all" | median)"
  printf '%-9s %10.2f %8.2f %10.2f %8.2f\n' "$c" "$cpu" "$(echo "$cpu / $stats_cpu" | bc -l)" "$wall" \
    "$(echo "$wall / $stats_wall" | bc -l)"
done
