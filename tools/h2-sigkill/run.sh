#!/usr/bin/env bash
# Usage: tools/h2-sigkill/run.sh [H2_VERSION] [ROUNDS]
# Each round: 1.5 s of TornStress writers, halt (as SIGKILL would), reopen, count orphaned entries.
# Prints how many rounds ended with how many orphans. Needs the H2 jar in ~/.m2 (any build of this
# repository fetches 2.5.252) or downloads it from Maven Central.
set -euo pipefail
version="${1:-2.5.252}"
rounds="${2:-50}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
jar="$HOME/.m2/repository/com/h2database/h2/$version/h2-$version.jar"
if [ ! -f "$jar" ]; then
  jar="$work/h2-$version.jar"
  curl -fsSL -o "$jar" "https://repo1.maven.org/maven2/com/h2database/h2/$version/h2-$version.jar"
fi
javac -d "$work/classes" -cp "$jar" "$here/TornStress.java"
for _ in $(seq 1 "$rounds"); do
  rm -f "$work/torn.mv.db"
  timeout 20 java -cp "$work/classes:$jar" org.h2.mvstore.tx.TornStress run "$work/torn.mv.db" 1500 \
    >/dev/null 2>&1 || true
  java -cp "$work/classes:$jar" org.h2.mvstore.tx.TornStress check "$work/torn.mv.db" 2>&1 | tail -1
done | sort | uniq -c
