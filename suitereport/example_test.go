package suitereport_test

import (
	"fmt"
	"log"

	"github.com/ideabench/ideabench/suitereport"
)

// Reading a suite report: the ci suite's golden report, its verdict, each
// track's row and each aggregate, without running anything.
func Example() {
	r, err := suitereport.Read("../golden/suite_ci_1.snap.json")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("suite %s: %s\n", r.Name, r.Verdict)
	for _, t := range r.Tracks {
		fmt.Printf("  %-8s idea better by %+.3f%%, can judge %v\n", t.Name, t.EffectPct, t.CanJudge)
	}
	for _, a := range r.Aggregates() {
		fmt.Printf("%s over %v: %+.3f%%, p = %.3f, P(equivalent) %.2f\n", a.Name, a.Tracks, a.MeanPct, a.PValue, a.PEquivalent)
	}
	// Output:
	// suite ci: practically equivalent
	//   panel    idea better by +0.048%, can judge true
	//   sequence idea better by +0.000%, can judge false
	// development over [panel]: +0.048%, p = 0.805, P(equivalent) 1.00
}
