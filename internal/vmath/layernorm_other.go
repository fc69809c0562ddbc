//go:build !amd64 || purego

package vmath

var lnImpls = []lnImpl{genericLN}
