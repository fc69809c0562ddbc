#!/usr/bin/env bash
# Side by side in one run: the Go training step (BenchmarkTrainStep, one
# goroutine) and its PyTorch peer (train_step.py, one thread), rounds
# interleaved so that both see the same machine state. Prints benchstat's
# comparison (Go first, torch second) and the active BLAS.
#
#   bash bench/peer/compare.sh [rounds]            # default 5 rounds per gate
#   bash bench/peer/compare.sh --shapes [rounds]   # BenchmarkTrainStepShapes' shapes, default 3 rounds
#                                                  # (SHAPES="recall mqar-8192" for some of them)
#
# Outputs go.txt and torch.txt in $OUT or a temporary directory.
#
# Both sides run pinned (taskset) to one CPU, PIN, default the last one the
# process may use: on a virtual machine one vCPU can be markedly slower than
# another for a while (measured on a 2-vCPU host: one ran both Go and torch
# 25-40% slower than the other, and which one changed within the hour), so
# unpinned rounds drift between the two; pinned, each round compares both
# peers on one core.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

shapes=false
if [ "${1:-}" = "--shapes" ]; then
	shapes=true
	shift
fi
rounds="${1:-5}"
out="${OUT:-$(mktemp -d)}"
py=/usr/bin/python3
# The peer runs its best kernels. On a CPU with AVX-512 (F, BW, VL, DQ):
# ATen's vectorized ops use it (PyTorch 1.13 stops at AVX2 unless told) and
# OpenBLAS its SkylakeX (AVX-512) kernels, whatever OPENBLAS_CORETYPE the
# environment carries (OpenBLAS 0.3.21 takes Zen 5 for Haswell, and this
# project's machines export OPENBLAS_CORETYPE=Haswell). Measured on Zen 5,
# one thread: the large shape's torch step 377 ms on Haswell kernels with
# AVX2 ATen, 267-276 ms so. PEER_OPENBLAS_CORETYPE and
# PEER_ATEN_CPU_CAPABILITY choose otherwise; the torch line of the output
# says what ran.
if grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo &&
	grep -qw avx512vl /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo; then
	export ATEN_CPU_CAPABILITY="${PEER_ATEN_CPU_CAPABILITY:-avx512}"
	export OPENBLAS_CORETYPE="${PEER_OPENBLAS_CORETYPE:-SkylakeX}"
fi
# PIN defaults to the last CPU this process may run on (Cpus_allowed_list,
# e.g. "0-1" or "2,5-7").
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null || true)
last="${allowed##*[,-]}"
pin="${PIN:-${last:-0}}"
pinned=()
if command -v taskset >/dev/null; then
	if ! taskset -c "$pin" true 2>/dev/null; then
		echo "compare.sh: PIN=$pin is not a CPU this process may run on (allowed: ${allowed:-unknown}); set PIN to one of them" >&2
		exit 2
	fi
	pinned=(taskset -c "$pin")
	echo "# pinned to CPU $pin" >&2
fi
: >"$out/go.txt"
: >"$out/torch.txt"

# Median of one metric (unit) of a benchmark's rounds in a file.
median() {
	awk -v name="$1" -v unit="$2" '$1 == name { for (i = 2; i < NF; i++) if ($(i+1) == unit) print $i }' "$3" |
		sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2 }'
}

# What ran, before the tables: the CPU, the peer's kernels, the BLAS, the files.
header() {
	echo "# pinned to CPU $pin (${pinned[*]:-taskset missing, not pinned}); torch: $(grep -m1 '^peer:' "$out/torch.txt")"
	echo "# BLAS: $(update-alternatives --query libblas.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/^Value: //p')"
	echo "# outputs: $out/go.txt $out/torch.txt"
}

if $shapes; then
	# name, torch flags, Go benchtime, torch steps per round (about 2 s each)
	specs=(
		"default|--d 32 --heads 4 --layers 2 --t 32 --h 8 --cin 1|400x|100"
		"ett|--d 64 --heads 4 --layers 2 --t 96 --h 96 --cin 1|40x|20"
		"large|--d 128 --heads 8 --layers 3 --t 96 --h 96 --cin 7|8x|6"
		"multivariate|--d 32 --heads 4 --layers 2 --t 336 --h 96 --cin 1 --patch 16 --norm last --skip --loss last|400x|100"
		"recall|--d 64 --heads 4 --layers 2 --t 64 --vocab 256 --labels 8 --batch 64|30x|20"
		"mqar-8192|--d 64 --heads 4 --layers 2 --t 128 --vocab 8192 --labels 8 --batch 64|6x|4"
	)
	if [ -n "${SHAPES:-}" ]; then
		# Only the shapes named in SHAPES (e.g. SHAPES="recall mqar-8192").
		keep=()
		for spec in "${specs[@]}"; do
			case " $SHAPES " in *" ${spec%%|*} "*) keep+=("$spec") ;; esac
		done
		specs=("${keep[@]}")
	fi
	go test -c -o "$out/transformer.test" ./transformer/
	for r in $(seq "${1:-3}"); do
		for spec in "${specs[@]}"; do
			IFS='|' read -r name flags bt steps <<<"$spec"
			bench="BenchmarkTrainStepShapes/shape=$name/threads=1"
			"${pinned[@]}" "$out/transformer.test" -test.run '^$' -test.bench "^$bench\$" \
				-test.benchtime "$bt" -test.cpu 1 | grep -v '^PASS' >>"$out/go.txt"
			# shellcheck disable=SC2086
			"${pinned[@]}" "$py" bench/peer/train_step.py $flags --count 1 --warmup 2 --steps "$steps" --bench-name "$bench" >>"$out/torch.txt"
		done
		echo "round $r done" >&2
	done
	header
	go tool benchstat -table '' -ignore goos,goarch,cpu,peer "$out/go.txt" "$out/torch.txt"
	for spec in "${specs[@]}"; do
		IFS='|' read -r name _ _ _ <<<"$spec"
		bench="BenchmarkTrainStepShapes/shape=$name/threads=1"
		gm=$(median "$bench" ms/step "$out/go.txt")
		tm=$(median "$bench" ms/step "$out/torch.txt")
		gf=$(median "$bench" GFLOP/s "$out/go.txt")
		pk=$(median "$bench" %peak "$out/go.txt")
		pg=$(median "$bench" peak-GFLOP/s "$out/go.txt")
		awk -v s="$name" -v gm="$gm" -v tm="$tm" -v gf="$gf" -v pk="$pk" -v pg="$pg" 'BEGIN { printf "shape=%s: Go %.3f ms/step (%s GFLOP/s, %s%% of the peak each process measured, median %s GFLOP/s), torch %.3f ms/step, Go is %.1fx faster (medians)\n", s, gm, gf, pk, pg, tm, tm / gm }'
	done
	exit 0
fi

go test -c -o "$out/transformer.test" ./transformer/
for r in $(seq "$rounds"); do
	for g in off on; do
		"${pinned[@]}" "$out/transformer.test" -test.run '^$' -test.bench "^BenchmarkTrainStep/gate=$g\$" \
			-test.benchtime 400x -test.cpu 1 | grep -v '^PASS' >>"$out/go.txt"
		"${pinned[@]}" "$py" bench/peer/train_step.py --gate "$g" --count 1 --steps 100 --name go >>"$out/torch.txt"
	done
	echo "round $r/$rounds done" >&2
done

header
# One table per unit: the two files differ in goos/cpu/peer lines, which
# benchstat would otherwise treat as separate configurations.
go tool benchstat -table '' -ignore goos,goarch,cpu,peer "$out/go.txt" "$out/torch.txt"

for g in off on; do
	name="BenchmarkTrainStep/gate=$g"
	gm=$(median "$name" ms/step "$out/go.txt")
	tm=$(median "$name" ms/step "$out/torch.txt")
	awk -v g="$g" -v gm="$gm" -v tm="$tm" 'BEGIN { printf "gate=%s: Go %.3f ms/step, torch %.3f ms/step, Go is %.1fx faster (medians)\n", g, gm, tm, tm / gm }'
done
