#!/usr/bin/env bash
# ab.sh BENCHREGEX ROUNDS BENCHTIME: interleave HEAD (old) vs working tree (new) transformer benchmark binaries.
set -euo pipefail
cd /work/main
re="$1"; rounds="${2:-5}"; bt="${3:-1s}"; pkg="${PKG:-./transformer/}"
rm -rf /tmp/abold && git worktree add -f /tmp/abold HEAD >/dev/null 2>&1 || { git worktree remove --force /tmp/abold; git worktree add -f /tmp/abold HEAD >/dev/null; }
(cd /tmp/abold && go test -c -o /tmp/old.test $pkg)
go test -c -o /tmp/new.test $pkg
: > /tmp/old.txt; : > /tmp/new.txt
for r in $(seq $rounds); do
  /tmp/old.test -test.run '^$' -test.bench "$re" -test.benchtime $bt -test.cpu ${CPU:-1} | grep Bench >> /tmp/old.txt
  /tmp/new.test -test.run '^$' -test.bench "$re" -test.benchtime $bt -test.cpu ${CPU:-1} | grep Bench >> /tmp/new.txt
done
git worktree remove --force /tmp/abold
go tool benchstat -filter '.unit:sec/op' /tmp/old.txt /tmp/new.txt 2>/dev/null || go tool benchstat /tmp/old.txt /tmp/new.txt
