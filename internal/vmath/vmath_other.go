//go:build !amd64 || purego

package vmath

var impls = []impl{genericImpl}
