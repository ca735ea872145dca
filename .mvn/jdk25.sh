# Sourced by ./mvnw, ./hetrace and .ci/run: points JAVA_HOME at a JDK 25.
# Order: $JAVA_HOME if it is a JDK 25, then /usr/lib/jvm/*25*. Fails with a clear message otherwise.
hetrace_is_jdk25() {
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  # The JDK's release file says its version without starting a JVM; ask the JVM only without it.
  if [ -f "$1/release" ]; then
    grep -Eq '^JAVA_VERSION="25([."]|$)' "$1/release"
    return
  fi
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | grep -Eq '^ *java\.specification\.version = 25$'
}
hetrace_find_jdk25() {
  if [ -n "${JAVA_HOME-}" ] && hetrace_is_jdk25 "$JAVA_HOME"; then return 0; fi
  # find, not a glob: callers may run with globbing off (mvnw uses set -f).
  for candidate in $(find /usr/lib/jvm -mindepth 1 -maxdepth 1 -name '*25*' 2>/dev/null | sort); do
    if [ -d "$candidate" ] && hetrace_is_jdk25 "$candidate"; then
      JAVA_HOME="$candidate"; export JAVA_HOME; return 0
    fi
  done
  echo "hetrace needs a JDK 25: JAVA_HOME (${JAVA_HOME:-unset}) is not one and none was found under /usr/lib/jvm/*25*." >&2
  echo "Install one (for example Temurin 25) and set JAVA_HOME to it." >&2
  return 1
}
