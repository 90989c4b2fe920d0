#!/usr/bin/env bash
# Usage: tools/h2-sigkill/run.sh [H2_VERSION] [ROUNDS]
# Each round: 1.5 s of TornStress writers, halt (as SIGKILL would), reopen, count orphaned entries.
# Prints how many rounds ended with how many orphans. Takes the H2 jar from the local Maven
# repository, resolving it there through the project's Maven wrapper when it is missing.
set -euo pipefail
version="${1:-2.5.252}"
rounds="${2:-50}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
repo="$("$here/../../mvnw" -q -B help:evaluate -Dexpression=settings.localRepository -DforceStdout \
  -f "$here/../../pom.xml" -N)"
jar="$repo/com/h2database/h2/$version/h2-$version.jar"
if [ ! -f "$jar" ]; then
  "$here/../../mvnw" -q -B dependency:get -Dartifact="com.h2database:h2:$version" -Dtransitive=false \
    -f "$here/../../pom.xml" -N >&2
fi
javac -d "$work/classes" -cp "$jar" "$here/TornStress.java"
for _ in $(seq 1 "$rounds"); do
  rm -f "$work/torn.mv.db"
  timeout 20 java -cp "$work/classes:$jar" org.h2.mvstore.tx.TornStress run "$work/torn.mv.db" 1500 \
    >/dev/null 2>&1 || true
  java -cp "$work/classes:$jar" org.h2.mvstore.tx.TornStress check "$work/torn.mv.db" 2>&1 | tail -1
done | sort | uniq -c
