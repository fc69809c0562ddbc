//go:build !unix

package lease

// processAlive cannot tell here: a lease then expires by its time to
// live only.
func processAlive(int) bool { return true }
