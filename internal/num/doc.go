// Package num reads numbers written by people and spreadsheets (CSV
// cells, command-line parameters): decimal notation only, finite, never
// the Go syntax that strconv.ParseFloat also accepts.
package num
