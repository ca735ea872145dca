#!/usr/bin/env bash
# Runs the CTF test suite's stress generators (ctf-testsuite/stress/{metadata,stream}/pass/*)
# through hetrace with a small heap, one trace at a time, and writes a results table.
#
# For every generator and every size of its param-list.txt (up to --max-size):
#   1. generate the trace in the scratch directory (python3 test.py prepare SIZE)
#   2. hetrace print --format=none TRACE          (decode everything, print nothing)
#   3. hetrace print TRACE > /dev/null            (babeltrace2 text, streamed to /dev/null)
#   each with HETRACE_JAVA_OPTS (default -Xmx256m), recording exit status, wall time and
#   peak RSS (GNU time), then delete the trace.
#
# Usage: bench/stress/run.sh [options]
#   -g, --generators LIST   comma-separated generator names or globs (default: all 18),
#                           e.g. "many-events,struct-nest-*"
#   -m, --max-size N        skip sizes above N (default: no limit)
#   -s, --sizes LIST        only these sizes (comma-separated), still capped by --max-size
#   -M, --modes LIST        none,text (default both)
#   -t, --timeout SECONDS   kill a hetrace run after this long (default 7200); exit 124
#   -d, --scratch DIR       where traces are generated (default /tmp/hetrace-stress)
#   -o, --output FILE       results table, Markdown (default bench/stress/results.md);
#                           a TSV with the same rows is written next to it
#   -k, --keep              keep the generated traces
# Environment: HETRACE_JAVA_OPTS (default -Xmx256m), CORPUS (default ../shared/corpus).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
corpus="${CORPUS:-$root/../shared/corpus}"
stress="$corpus/ctf-testsuite/stress"
generators=""
max_size=""
sizes=""
modes="none,text"
timeout_s=7200
scratch=/tmp/hetrace-stress
output="$here/results.md"
keep=0
java_opts="${HETRACE_JAVA_OPTS:--Xmx256m}"

while [ $# -gt 0 ]; do
  case "$1" in
    -g|--generators) generators="$2"; shift 2 ;;
    -m|--max-size) max_size="$2"; shift 2 ;;
    -s|--sizes) sizes="$2"; shift 2 ;;
    -M|--modes) modes="$2"; shift 2 ;;
    -t|--timeout) timeout_s="$2"; shift 2 ;;
    -d|--scratch) scratch="$2"; shift 2 ;;
    -o|--output) output="$2"; shift 2 ;;
    -k|--keep) keep=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done

[ -d "$stress" ] || { echo "run.sh: no stress generators at $stress (set CORPUS)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "run.sh: python3 is needed to run the generators" >&2; exit 2; }
timer=""
[ -x /usr/bin/time ] && timer=/usr/bin/time

# Build once, then run a copy of the jar: editing sources during a long run changes nothing.
. "$root/.mvn/jdk25.sh"
hetrace_find_jdk25 || exit 2
"$root/hetrace" --version >/dev/null || { echo "run.sh: build failed" >&2; exit 2; }
mkdir -p "$scratch"
cp "$root/cli/target/hetrace.jar" "$scratch/hetrace.jar"
java="$JAVA_HOME/bin/java"

# The metadata generators import ctftestsuite.stress.MetadataTestAssistant, a helper of the
# test suite that the corpus does not ship. This stand-in does what they need: it writes
# trace-SIZE/metadata with the basic prologue followed by what write_metadata() adds.
pylib="$scratch/pylib/ctftestsuite"
mkdir -p "$pylib"
: > "$pylib/__init__.py"
cat > "$pylib/stress.py" <<'PY'
import os
import shutil
import sys


class MetadataTestAssistant:
    BASIC_PROLOGUE = '''/* CTF 1.8 */

typealias integer { size = 8; align = 8; signed = false; base = 10; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; base = hex; } := uint32_t;

trace {
    major = 1;
    minor = 8;
    uuid = "2a6422d0-6cee-11e0-8c08-cb07d7b3a564";
    byte_order = le;
    packet.header := struct {
        uint32_t magic;
        uint8_t uuid[16];
    };
};

'''

    @property
    def size(self):
        return self._size

    def main(self):
        # accepts "prepare SIZE" (like the stream generators) and "-s SIZE prepare"
        args = sys.argv[1:]
        size = None
        action = None
        rest = []
        i = 0
        while i < len(args):
            if args[i] in ('-s', '--size'):
                size = int(args[i + 1])
                i += 2
            else:
                rest.append(args[i])
                i += 1
        action = rest[0]
        if size is None:
            size = int(rest[1])
        self._size = size
        directory = 'trace-{}'.format(size)
        shutil.rmtree(directory, ignore_errors=True)
        if action == 'prepare':
            os.mkdir(directory)
            with open(os.path.join(directory, 'metadata'), 'w') as f:
                self.write_metadata(f)
        elif action != 'clean':
            sys.exit('unknown action ' + action)
PY

all_generators=$(cd "$stress" && ls -d metadata/pass/* stream/pass/* | sort)
selected=()
for g in $all_generators; do
  name="${g##*/}"
  if [ -z "$generators" ]; then
    selected+=("$g")
    continue
  fi
  IFS=',' read -ra pats <<< "$generators"
  for p in "${pats[@]}"; do
    # shellcheck disable=SC2053
    if [[ "$name" == $p ]]; then selected+=("$g"); break; fi
  done
done
[ ${#selected[@]} -gt 0 ] || { echo "run.sh: no generator matches '$generators'" >&2; exit 2; }

tsv="${output%.md}.tsv"
mkdir -p "$(dirname "$output")"
printf 'generator\tsize\tgen_s\tmode\texit\twall_s\tpeak_rss_mb\tnote\n' > "$tsv"

# Runs hetrace once; prints "exit<TAB>wall<TAB>rss<TAB>note".
run_one() {
  local trace="$1" mode="$2" log="$scratch/run.log" tlog="$scratch/time.log"
  local fmt=()
  [ "$mode" = none ] && fmt=(--format=none)
  local start end rc wall rss note
  start=$(date +%s.%N)
  if [ -n "$timer" ]; then
    timeout --signal=KILL "$timeout_s" $timer -v -o "$tlog" \
      "$java" $java_opts --enable-native-access=ALL-UNNAMED -jar "$scratch/hetrace.jar" print "${fmt[@]}" "$trace" \
      > /dev/null 2> "$log"
    rc=$?
  else
    timeout --signal=KILL "$timeout_s" \
      "$java" $java_opts --enable-native-access=ALL-UNNAMED -jar "$scratch/hetrace.jar" print "${fmt[@]}" "$trace" \
      > /dev/null 2> "$log"
    rc=$?
  fi
  end=$(date +%s.%N)
  [ $rc -eq 137 ] && rc=124 # killed by timeout
  wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
  rss="-"
  if [ -n "$timer" ] && [ -f "$tlog" ]; then
    rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$tlog")
    rm -f "$tlog"
  fi
  note=""
  if [ $rc -eq 124 ]; then
    note="timeout after ${timeout_s}s"
  elif [ $rc -ne 0 ]; then
    note=$(grep -v '^\s*at ' "$log" | grep -E 'Error|Exception|hetrace:' | grep -v 'warning:' | head -1 \
      | tr '\t|' '  ' | cut -c1-140)
  fi
  printf '%s\t%s\t%s\t%s\n' "$rc" "$wall" "$rss" "$note"
}

IFS=',' read -ra mode_list <<< "$modes"
IFS=',' read -ra size_list <<< "$sizes"
for g in "${selected[@]}"; do
  name="${g##*/}"
  dir="$stress/$g"
  for size in $(cat "$dir/param-list.txt"); do
    if [ -n "$max_size" ] && [ "$size" -gt "$max_size" ]; then continue; fi
    if [ -n "$sizes" ] && ! printf '%s\n' "${size_list[@]}" | grep -qx "$size"; then continue; fi
    work="$scratch/work"
    rm -rf "$work"; mkdir -p "$work"
    gstart=$(date +%s.%N)
    if ! (cd "$work" && PYTHONPATH="$scratch/pylib" python3 "$dir/test.py" prepare "$size" > /dev/null); then
      printf '%s\t%s\t-\t-\tgen-failed\t-\t-\tgenerator failed\n' "$name" "$size" | tee -a "$tsv"
      rm -rf "$work"
      continue
    fi
    gen=$(awk -v s="$gstart" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')
    for mode in "${mode_list[@]}"; do
      res=$(run_one "$work/trace-$size" "$mode")
      printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$size" "$gen" "$mode" "$res" | tee -a "$tsv"
    done
    if [ $keep -eq 0 ]; then rm -rf "$work"; fi
  done
done

# Markdown table: one row per generator and size, both modes side by side.
{
  echo "| generator | size | gen s | none: exit | none: s | none: RSS MB | text: exit | text: s | text: RSS MB | note |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  awk -F'\t' 'NR > 1 {
      key = $1 "\t" $2
      if (!(key in seen)) { seen[key] = 1; order[++n] = key; gen[key] = $3 }
      if ($4 == "none") { ne[key] = $5; nw[key] = $6; nr[key] = $7 }
      else if ($4 == "text") { te[key] = $5; tw[key] = $6; tr[key] = $7 }
      else { ne[key] = $5 }
      if ($8 != "" && !(key in note)) note[key] = $8
    }
    END {
      for (i = 1; i <= n; i++) {
        k = order[i]; split(k, p, "\t")
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], gen[k],
          (k in ne ? ne[k] : "-"), (k in nw ? nw[k] : "-"), (k in nr ? nr[k] : "-"),
          (k in te ? te[k] : "-"), (k in tw ? tw[k] : "-"), (k in tr ? tr[k] : "-"), note[k]
      }
    }' "$tsv"
} > "$output"
echo "results: $output" >&2
