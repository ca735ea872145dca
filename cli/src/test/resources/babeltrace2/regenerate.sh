#!/usr/bin/env bash
# Writes NAME.out and NAME.err (and NAME.tty for @lossy cases) for every case of cases.tsv with babeltrace2 (2.0.4), TZ=UTC.
# Usage: regenerate.sh CORPUS_DIR   (run from anywhere; needs the project's test classes built:
#        ./mvnw -q -DskipTests test-compile)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../../.." && pwd)"
corpus="$(cd "$1" && pwd)"
. "$root/.mvn/jdk25.sh"
hetrace_find_jdk25
lossy="$(mktemp -d)/lossy"
"$JAVA_HOME/bin/java" -cp "$root/cli/target/test-classes:$root/ctf/target/test-classes" dev.hetrace.cli.LossyTrace "$lossy"
grep -v '^#' "$here/cases.tsv" | while IFS=$'\t' read -r -a f; do
  name="${f[0]}"; trace="${f[1]}"; args=("${f[@]:2}")
  if [ "$trace" = "@lossy" ]; then path="$lossy"; else path="$corpus/$trace"; fi
  TZ=UTC babeltrace2 "$path" "${args[@]}" > "$here/$name.out" 2> "$here/$name.err.raw" || { echo "$name: babeltrace2 failed" >&2; exit 1; }
  # babeltrace2's own log lines (MM-DD HH:MM:SS.mmm ...) are not part of what it reports.
  grep -v '^[0-9][0-9]-[0-9][0-9] [0-9:.]* ' "$here/$name.err.raw" \
    | sed -e "s#$lossy#{lossy}#g" -e "s#$corpus#{corpus}#g" > "$here/$name.err" || true
  rm "$here/$name.err.raw"
  if [ "$trace" = "@lossy" ]; then
    # On a terminal, babeltrace2 writes each warning among the events where it occurs:
    # NAME.tty is that interleaving (colors removed).
    cmd="TZ=UTC babeltrace2 $(printf '%q ' "$path" "${args[@]}")"
    script -qc "$cmd" /dev/null < /dev/null | sed -e 's/\x1b\[[0-9;]*m//g' -e "s#$lossy#{lossy}#g" | tr -d '\r' > "$here/$name.tty"
  fi
done
