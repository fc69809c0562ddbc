// Package suitereport is the suite report's schema: what `ideabench
// suite` writes (Report: the spec, each track's row, the development and
// confirmation aggregates) and the suite it describes (Spec), with
// reading (Read, strict) and writing (Report.WriteFile).
//
// It holds no runner: a reader of suite reports (plots, a notebook's
// Go helper) imports it without package suite, which runs the tracks,
// assembles the report and verifies it. The statistics of an aggregate
// are stats.SuiteResult's; what each field means is in docs/suites.md.
package suitereport
