//go:build !amd64 || purego

package kernel

type peakProbe struct {
	name        string
	flopPerIter float64
	run         func(n int)
	ok          bool
}

var peakProbes []peakProbe
