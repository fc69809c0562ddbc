package track_test

import (
	"fmt"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
)

// The reference forecasters of the ci profile's sequence track, fitted on
// its train windows and scored on test.
func ExampleReferences() {
	p := protocol.CIProfileFor("sequence")
	d, err := p.Data()
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := track.References(d.Dataset, p.Contexts())
	if err != nil {
		fmt.Println(err)
		return
	}
	name, mse := f.Best()
	fmt.Printf("best reference: %s, beats persistence: %v\n", name, mse < f.Persistence)
	// Output:
	// best reference: linear_ar, beats persistence: true
}
