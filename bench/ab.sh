#!/usr/bin/env bash
# A/B of a benchmark between a git revision (A, default HEAD) and the
# working tree (B): both test binaries are built, then run in interleaved
# rounds on one pinned CPU so that both see the same machine state, and
# benchstat compares them (A first).
#
#   bash bench/ab.sh REGEX [ROUNDS] [BENCHTIME]
#
#   REGEX      the -test.bench pattern, e.g. 'TrainStepShapes/shape=multivariate/threads=1'
#   ROUNDS     interleaved rounds (default 5)
#   BENCHTIME  each round's -test.benchtime (default 1s; e.g. 400x)
#
# Environment: PKG the package (default ./transformer/), BASE the A
# revision (default HEAD), PIN the CPU (default the last one this process
# may use, as bench/peer/compare.sh), OUT a directory for a.txt and b.txt
# (default a temporary one). Works from any clone: A is built in a
# temporary git worktree, removed on exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ $# -lt 1 ]; then
	sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit 2
fi
re="$1"
rounds="${2:-5}"
bt="${3:-1s}"
pkg="${PKG:-./transformer/}"
base="${BASE:-HEAD}"
out="${OUT:-$(mktemp -d)}"
work="$(mktemp -d)"
trap 'git worktree remove --force "$work/a" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git worktree add --detach "$work/a" "$base" >/dev/null
(cd "$work/a" && go test -c -o "$work/a.test" "$pkg")
go test -c -o "$work/b.test" "$pkg"

allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null || true)
last="${allowed##*[,-]}"
pin="${PIN:-${last:-0}}"
pinned=()
if command -v taskset >/dev/null && taskset -c "$pin" true 2>/dev/null; then
	pinned=(taskset -c "$pin")
fi
echo "# A = $base ($(git rev-parse --short "$base")), B = the working tree; $rounds rounds of $bt, pinned: ${pinned[*]:-no}" >&2

: >"$out/a.txt"
: >"$out/b.txt"
for _ in $(seq "$rounds"); do
	for side in a b; do
		"${pinned[@]}" "$work/$side.test" -test.run '^$' -test.bench "$re" -test.benchtime "$bt" -test.cpu "${CPU:-1}" |
			grep '^Benchmark' >>"$out/$side.txt"
	done
done
go tool benchstat "$out/a.txt" "$out/b.txt"
echo "# outputs: $out/a.txt $out/b.txt" >&2
