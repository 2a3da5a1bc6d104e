# Sourced by bin/dev and .ci/run: selects a JDK >= 25 into JAVA_HOME when the default java is older.
java_major() {
  "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}

select_jdk() {
  local current major best="" best_major=0 candidate
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    current="$JAVA_HOME/bin/java"
  else
    current=$(command -v java || true)
  fi
  if [ -n "$current" ]; then
    major=$(java_major "$current")
    if [ "${major:-0}" -ge 25 ]; then
      export JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$current")")")"
      return 0
    fi
  fi
  for candidate in /usr/lib/jvm/*/bin/java; do
    [ -x "$candidate" ] || continue
    major=$(java_major "$candidate")
    if [ "${major:-0}" -ge 25 ] && [ "$major" -gt "$best_major" ]; then
      best="$candidate"
      best_major="$major"
    fi
  done
  if [ -z "$best" ]; then
    echo "Tandem needs a JDK >= 25: none found on PATH or under /usr/lib/jvm" >&2
    return 1
  fi
  export JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$best")")")"
  export PATH="$JAVA_HOME/bin:$PATH"
}

select_jdk
