package protocol

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Sequential, in a protocol, runs the seeds in looks and stops as soon as
// the comparison is decided: look k trains the first n_k = k·n_1 seeds
// (n_1 = len(seeds), the protocol's own; later seeds continue from the
// largest one), up to MaxSeeds. The type I error over all looks is at most
// alpha by alpha spending (Lan & DeMets 1983, "Discrete sequential
// boundaries for clinical trials", Biometrika 70(3)): with t_k = n_k /
// MaxSeeds the information fraction and A(t) the spending function, look
// k rejects when its p-value is below
//
//	α_k = A(t_k) - A(t_{k-1}),   A(0) = 0, A(1) = alpha
//
// and P(any look rejects | null) <= Σ_k P(p_k < α_k) <= Σ_k α_k = alpha by
// the union bound: each look's permutation p-value is valid on its own, so
// the design needs no assumption on how looks correlate (it is
// conservative where they do). Spending functions:
//
//	obrien-fleming  A(t) = 2 - 2Φ(z_{1-alpha/2} / √t)    (Lan & DeMets 1983): little alpha early, most at the end
//	pocock          A(t) = alpha · ln(1 + (e-1)·t)       (Lan & DeMets 1983): more evenly spread, stops earlier under large effects
type Sequential struct {
	MaxSeeds int    `json:"max_seeds"`
	Spending string `json:"spending,omitempty"` // "obrien-fleming" (the default) or "pocock"
}

// The spending functions.
const (
	SpendOBrienFleming = "obrien-fleming"
	SpendPocock        = "pocock"
)

// SequentialDesign names the design in the report.
const SequentialDesign = "group-sequential looks with alpha spending (Lan & DeMets 1983); look k rejects when its p-value is below A(t_k) - A(t_{k-1}), so the type I error over all looks is at most alpha (union bound)"

// maxSequentialSeeds bounds max_seeds: every look trains every cfg of
// every arm on each seed.
const maxSequentialSeeds = 1024

// Spend returns the alpha spent by information fraction t in [0, 1]
// under the spending function kind ("" is obrien-fleming).
func Spend(kind string, alpha, t float64) float64 {
	if t <= 0 {
		return 0
	}
	t = min(t, 1)
	switch kind {
	case SpendPocock:
		return alpha * math.Log(1+(math.E-1)*t)
	default:
		// 2·(1 - Φ(z)) as erfc(z/√2), accurate far in the tail.
		z := distuv.UnitNormal.Quantile(1 - alpha/2)
		return math.Erfc(z / math.Sqrt(t) / math.Sqrt2)
	}
}

// errors of a sequential block, shaped "<field> = <value>: ...; fix".
func (s *Sequential) errors(p Protocol) []error {
	var errs []error
	n1 := len(p.Seeds)
	if s.MaxSeeds <= n1 || s.MaxSeeds > maxSequentialSeeds {
		errs = append(errs, fmt.Errorf("sequential.max_seeds = %d: must exceed the %d seeds of the first look and be at most %d; use e.g. %d", s.MaxSeeds, n1, maxSequentialSeeds, 4*n1))
	}
	if s.Spending != "" && s.Spending != SpendOBrienFleming && s.Spending != SpendPocock {
		errs = append(errs, fmt.Errorf("sequential.spending = %q: unknown; use %q or %q", s.Spending, SpendOBrienFleming, SpendPocock))
	}
	return errs
}

// LookSizes returns the seeds of each look: n_1, 2·n_1, ... and MaxSeeds
// last.
func (s *Sequential) LookSizes(n1 int) []int {
	var out []int
	for n := n1; ; n += n1 {
		out = append(out, min(n, s.MaxSeeds))
		if n >= s.MaxSeeds {
			return out
		}
	}
}

// AllSeeds returns the protocol's seeds followed by the seeds later looks
// add: the integers after the largest of them, up to MaxSeeds in all.
func (s *Sequential) AllSeeds(seeds []uint64) []uint64 {
	out := slices.Clone(seeds)
	next := slices.Max(seeds) + 1
	for len(out) < s.MaxSeeds {
		out = append(out, next)
		next++
	}
	return out
}
