package suite_test

import (
	"fmt"

	"github.com/ideabench/ideabench/suite"
)

// The built-in default suite: the development tracks run first, the
// held-out confirmation track last.
func Example() {
	s := suite.Default()
	for _, t := range s.Tracks {
		kind := "development"
		if t.Confirm {
			kind = "confirmation"
		}
		what := t.Track
		if t.Dataset != "" {
			what = "data set " + t.Dataset
		}
		fmt.Printf("%-8s %-17s %s\n", t.Name, what, kind)
	}
	fmt.Println(s.Validate())
	// Output:
	// panel    panel             development
	// sequence sequence          development
	// ETTh1    data set ETTh1    development
	// ETTm1    data set ETTm1    development
	// weather  data set weather  development
	// illness  data set illness  development
	// sunspots data set sunspots confirmation
	// <nil>
}
