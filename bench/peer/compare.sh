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
go tool benchstat "$out/go.txt" "$out/torch.txt"
