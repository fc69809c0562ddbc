// Package report holds the JSON report: its schema (Report, every field
// of the seed report under its name, additions under new keys), reading
// it strictly (Parse, Read, with jsonstrict: line and column
// of a fault, the JSON path of a mistyped value, trailing data, duplicate
// and unknown keys refused), writing it (Report.WriteFile) and the
// digests that seal its inputs (Report.Seal, TrialsDigest).
//
// What each field means is in docs/report.md; package derive computes
// them.
package report
