// Package golden snapshot-tests reports against the golden files in this
// folder, with go-snaps.
//
//  1. Normalize drops the volatile "run" block (wall time, versions) and
//     rounds every number to Digits significant digits, so a golden file
//     states what the protocol computes, not the noise of one machine's
//     last bits.
//  2. Match compares the normalized JSON with golden/NAME_1.snap.json.
//
// Update the files with `go test -run Bench -update .` or go-snaps'
// UPDATE_SNAPS=true; on CI (CI=true) a missing or different snapshot
// fails instead.
package golden
