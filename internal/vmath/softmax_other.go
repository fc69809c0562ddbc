//go:build !amd64 || purego

package vmath

var softmaxImpls = []softmaxImpl{genericSoftmax, rowsSoftmax}
