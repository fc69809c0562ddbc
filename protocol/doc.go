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
//	protocol   what a run is (this package)
//	trial      one trial trained and evaluated; the store and its leases
//	reference  the reference forecasters every report quotes
//	report     the report's schema, reading and digests
//	derive     every report field from its inputs, and Verify beside it
//	harness    the run loop, sequential looks, controls and merge
package protocol
