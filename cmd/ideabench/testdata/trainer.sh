#!/bin/sh
# A trainer for the tests of external trainers: after a pause of $1
# seconds it forecasts every step of every window as the window's last
# value of the target (persistence; the start forecasts are the mean, 0),
# reading the trial file ideabench writes ($2).
set -eu
pause=$1
trial=$2
field() { sed -n "s/^  \"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$trial"; }
out=$(field out)
t=$(field t)
h=$(field h)
target=$(field target)
sleep "$pause"
for split in val test; do
	awk -F, -v col="x.$target.$((t - 1))" -v h="$h" -v out="$out" -v part="$split" '
		/^#/ { next }
		!head { for (i = 1; i <= NF; i++) if ($i == col) c = i; head = 1
			printf "window" > (out "/" part ".csv"); printf "window" > (out "/start_" part ".csv")
			for (k = 1; k <= h; k++) { printf ",f%d", k > (out "/" part ".csv"); printf ",f%d", k > (out "/start_" part ".csv") }
			print "" > (out "/" part ".csv"); print "" > (out "/start_" part ".csv"); next }
		{ printf "%s", $1 > (out "/" part ".csv"); printf "%s", $1 > (out "/start_" part ".csv")
			for (k = 1; k <= h; k++) { printf ",%s", $c > (out "/" part ".csv"); printf ",0" > (out "/start_" part ".csv") }
			print "" > (out "/" part ".csv"); print "" > (out "/start_" part ".csv") }
	' "$(field "$split")"
done
