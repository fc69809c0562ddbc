// Package harness runs the seeded protocol that compares an idea with a
// tuned baseline: Run trains every trial of a protocol (in parallel,
// reusing and filling a trial store, one shard of many if asked) and
// derives the report; Merge assembles a sharded run; a sequential
// protocol runs look by look; Control repeats the comparison over
// disjoint seed blocks to measure the protocol's error rate or power.
//
// Design stance: a trial (one cfg of one arm on one seed) is a pure
// function of the protocol, the cfg and the seed, so trials run in any
// order, on any number of workers or machines, are stored under a content
// address and reused, and the report is the same bytes whatever ran them.
//
// The pipeline and the room of each step:
//
//  1. Protocol (package protocol): a profile with a config file over it,
//     validated field by field; the track's data.
//  2. Trials (package trial): every cfg of the baseline, the idea and any
//     further idea arm on every seed, reused from and saved to a Store.
//  3. References (track.References): the reference forecasters.
//  4. Report (package derive, into the schema of package report): each
//     arm's cfg by mean validation metric, the seed-by-seed comparison
//     decided by the selection-aware test, competence, informativeness,
//     the mechanism signature and math check, warnings, digests.
//  5. Verify (package derive) reads the inputs back out of a report,
//     derives it again and compares the two leaf by leaf.
package harness
