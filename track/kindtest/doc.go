// Package kindtest holds the test that a track kind registered outside
// the shipped ones (track.Register) runs through the protocol with no
// change above package track: it validates, takes its profile's
// training, keys its trials, builds its data and fits its references
// through the kind, and reports its metric's name and direction.
package kindtest
