#!/usr/bin/env bash
# Side by side in one run: the Go training step (BenchmarkTrainStep, one
# goroutine) and its PyTorch peer (train_step.py, one thread), rounds
# interleaved so that both see the same machine state. Prints benchstat's
# comparison (Go first, torch second) and the active BLAS.
#
#   bash bench/peer/compare.sh [rounds]      # default 5 rounds per gate
#
# Outputs go.txt and torch.txt in $OUT or a temporary directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

rounds="${1:-5}"
out="${OUT:-$(mktemp -d)}"
py=/usr/bin/python3
: >"$out/go.txt"
: >"$out/torch.txt"

go test -c -o "$out/transformer.test" ./transformer/
for r in $(seq "$rounds"); do
	for g in off on; do
		"$out/transformer.test" -test.run '^$' -test.bench "^BenchmarkTrainStep/gate=$g\$" \
			-test.benchtime 400x -test.cpu 1 | grep -v '^PASS' >>"$out/go.txt"
		"$py" bench/peer/train_step.py --gate "$g" --count 1 --steps 100 --name go >>"$out/torch.txt"
	done
	echo "round $r/$rounds done" >&2
done

echo "# BLAS: $(update-alternatives --query libblas.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/^Value: //p')"
echo "# outputs: $out/go.txt $out/torch.txt"
# One table per unit: the two files differ in goos/cpu/peer lines, which
# benchstat would otherwise treat as separate configurations.
go tool benchstat -table '' -ignore goos,goarch,cpu,peer "$out/go.txt" "$out/torch.txt"

# Ratio of medians, torch ms/step over Go ms/step (how many times faster Go is).
ratio() {
	awk -v name="$1" '$1 == name { for (i = 2; i < NF; i++) if ($(i+1) == "ms/step") print $i }' "$2" |
		sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2 }'
}
for g in off on; do
	name="BenchmarkTrainStep/gate=$g"
	gm=$(ratio "$name" "$out/go.txt")
	tm=$(ratio "$name" "$out/torch.txt")
	awk -v g="$g" -v gm="$gm" -v tm="$tm" 'BEGIN { printf "gate=%s: Go %.3f ms/step, torch %.3f ms/step, Go is %.1fx faster (medians)\n", g, gm, tm, tm / gm }'
done
