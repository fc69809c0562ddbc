// Package trial trains and evaluates one trial (one cfg of one arm on one
// seed: RunTrial, TrainTrial) and keeps finished trials in a Store.
//
// A trial is a pure function of its protocol, cfg and seed: AdamW under a
// learning-rate schedule, per-epoch validation and early stopping, the
// skip path's closed-form start, the mechanism signature of the trained
// gate. The Store keeps one JSON record per trial under its content
// address (protocol.TrialKey), written atomically and checked by its
// SHA-256 when read; leases let several processes share one store, each
// trial trained once. WriteWindowsCSV and ReadWindowsCSV export a track's
// windows for other tools and read them back.
package trial
