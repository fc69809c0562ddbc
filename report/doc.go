// Package report holds the JSON report: its schema (Report, every field
// of the seed report under its name, additions under new keys), reading
// it strictly (ParseReport, ReadReport: line and column of a fault, the
// JSON path of a mistyped value, duplicate keys refused, unknown keys set
// aside for verify), writing it (Report.WriteFile) and the digests that
// seal its inputs (Report.Seal, TrialsDigest).
//
// What each field means is in docs/report.md; package derive computes
// them.
package report
