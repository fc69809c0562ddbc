// Package protocol says what a run of ideabench is: the profiles
// (FullProfile, SeedProfile, CIProfileFor), a config file over one
// (Load), the one way the command line and a suite build a
// protocol from a profile, a data set, configs and flags (Build),
// validated field by field (Protocol.Validate); each
// arm's grid of cfgs and the trials they make (Protocol.Trials); a
// sequential design's looks; the track's data (Protocol.Data,
// Protocol.DataWithin); a trial's content address (Protocol.Key) and the
// protocol's estimates of time and memory (Protocol.Estimate).
//
// It trains nothing and reports nothing: package trial trains a trial,
// package derive builds the report, package harness runs the whole.
//
// The rooms, each importing only those before it:
//
//	track        the data (generators, readers), its references and kinds
//	protocol     what a run is (this package)
//	trial        one trial trained and evaluated; the store and its leases
//	report       the report's schema, reading and digests
//	suitereport  the suite report's schema
//	derive       every report field from its inputs, and Verify beside it
//	compare      the statistics on per-seed metrics made elsewhere
//	harness      the run loop, sequential looks, controls and merge
//	suite        a suite's tracks run and aggregated
//	plots        figures and pages of a report, without derive or trainer
package protocol
