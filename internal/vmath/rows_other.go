//go:build !amd64 || purego

package vmath

var rowImpls = []rowImpl{genericRows}
