//go:build !amd64 || purego

package vmath

var impls = []impl{genericImpl}

// transpose16 reports that no assembly Transpose kernel runs on this build.
func transpose16(dst []float32, ldd int, src []float32, r, c int) bool { return false }

// interleave16 reports that no assembly kernel interleaves on this build.
func interleave16(d, a, b []float32) int { return 0 }
