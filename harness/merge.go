package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/trial"
)

// Merge assembles the report of the protocol that the results
// directories' manifests name from the trial records found in them. It
// refuses, naming the files, when the manifests disagree on the protocol
// or the training version, when this build's TrainingVersion differs,
// when a trial is missing (naming the shard that runs it), when one trial
// has records with different results, or when a record is corrupt.
func Merge(ctx context.Context, dirs []string) (*Outcome, error) {
	if len(dirs) == 0 {
		return nil, errors.New("harness: merge: no results directories given")
	}
	var (
		p        protocol.Protocol
		shards   int
		first    string
		haveProt bool
		dataSHA  string
	)
	for _, dir := range dirs {
		ms, err := trial.ReadManifests(dir)
		if err != nil {
			return nil, err
		}
		if len(ms) == 0 {
			return nil, fmt.Errorf("harness: merge: %s has no protocol.json or shard-*.json manifest; is it an ideabench results directory (run --results)?", dir)
		}
		for _, name := range slices.Sorted(maps.Keys(ms)) {
			m := ms[name]
			if m.TrainingVersion != protocol.TrainingVersion {
				return nil, fmt.Errorf("harness: merge: %s was written by training version %s, this build is %s; rerun that shard with this build", name, m.TrainingVersion, protocol.TrainingVersion)
			}
			if !haveProt {
				p, first, haveProt, dataSHA = m.Protocol, name, true, m.DataSHA256
			} else if m.ProtocolID != p.ID() || m.DataSHA256 != dataSHA {
				return nil, fmt.Errorf("harness: merge: %s is protocol %s but %s is protocol %s; merge only shards of one protocol", name, m.ProtocolID, first, p.ID())
			}
			shards = max(shards, m.Shards)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("harness: merge: protocol of %s: %w", first, err)
	}
	d, err := p.Data()
	if err != nil {
		return nil, fmt.Errorf("harness: merge: %w", err)
	}
	if dataSHA != d.SHA256 {
		return nil, fmt.Errorf("harness: merge: %s ran on data with SHA-256 %s, but %s now has %s; merge where the shards' data file is", first, dataSHA, p.CSV.Path, d.SHA256)
	}
	// A grid extension's starting grids are what the shards ran; its
	// later rounds are run here (mergeRounds).
	q := p
	q.ExtendGrid = nil
	trials := q.Trials()
	results := make([]trial.Result, len(trials))
	var missing []string
	for i, t := range trials {
		k := q.Key(t, d.SHA256)
		var found []byte
		var from string
		for _, dir := range dirs {
			st := &trial.Store{Dir: dir}
			path := st.Path(k.ID())
			rec, res, ok, err := st.Read(k.ID())
			if err != nil {
				return nil, fmt.Errorf("harness: merge: %s: %w; delete it and rerun its shard", path, err)
			}
			if !ok {
				continue
			}
			if found != nil && !bytes.Equal(found, rec.Result) {
				return nil, fmt.Errorf("harness: merge: trial %s (%s cfg %d seed %d) has different results in %s and %s", k.ID(), t.Arm, t.Cfg, t.Seed, from, path)
			}
			found, from, results[i] = rec.Result, path, res
		}
		if found == nil {
			missing = append(missing, fmt.Sprintf("%s cfg %d seed %d (trial %d, --shard %d/%d)", t.Arm, t.Cfg, t.Seed, i, i%max(shards, 1), max(shards, 1)))
		}
	}
	if n := len(missing); n > 0 {
		const show = 5
		more := ""
		if n > show {
			more = fmt.Sprintf("; and %d more", n-show)
			missing = missing[:show]
		}
		return nil, fmt.Errorf("harness: merge: %d of %d trials missing: %s%s; run the missing shards into these directories", n, len(trials), strings.Join(missing, "; "), more)
	}
	// The determinism check runs the trainer again where the first
	// results directory is, against the first run's forecasts in
	// whichever shard's directory holds them, with the trainer's files
	// as the shards ran them.
	if p.External() {
		now, err := p.Pin()
		if err != nil {
			return nil, fmt.Errorf("harness: merge: %w", err)
		}
		for name, tr := range p.Trainers {
			for f, sum := range tr.SHA256 {
				if now.Trainers[name].SHA256[f] != sum {
					return nil, fmt.Errorf("harness: merge: trainers.%s.files: %s changed since the shards ran (SHA-256 %s, now %s); restore it, or rerun the shards with it", name, f, sum, now.Trainers[name].SHA256[f])
				}
			}
		}
	}
	if p.ExtendGrid != nil {
		if q, trials, results, err = mergeRounds(ctx, p, q, dirs, trials, results); err != nil {
			return nil, err
		}
	}
	ws, _, err := workspace(p, &trial.Store{Dir: dirs[0]})
	if err != nil {
		return nil, err
	}
	var others []string
	for _, dir := range dirs[1:] {
		others = append(others, filepath.Join(dir, "external"))
	}
	rerun, err := rerunCheck(ctx, ws, others, q, d.Dataset, d.SHA256, trials, results)
	if err != nil {
		return nil, err
	}
	r, err := derive.Assemble(p, d, trials, results, rerun)
	if err != nil {
		return nil, err
	}
	return &Outcome{Report: r, Trials: trials, Results: results, Data: d.Dataset}, nil
}

// mergeRounds runs the later rounds of p's grid extension from its
// starting grids q and their trials: while the choices grow the grids, it
// trains the new cfgs' trials into the first directory (reusing records
// any of dirs holds), and returns the last round's protocol, trials and
// results.
func mergeRounds(ctx context.Context, p, q protocol.Protocol, dirs []string, trials []protocol.Trial, results []trial.Result) (protocol.Protocol, []protocol.Trial, []trial.Result, error) {
	st := &trial.Store{Dir: dirs[0], Also: dirs[1:]}
	for round := 0; ; round++ {
		chosen, err := derive.Choices(q, trials, results)
		if err != nil {
			return q, nil, nil, err
		}
		next, _, more := q.Extend(p.ExtendGrid, round, chosen)
		if !more {
			return q, trials, results, nil
		}
		q = next
		o, err := Run(ctx, q, Options{Store: st, round: true})
		if err != nil {
			return q, nil, nil, fmt.Errorf("harness: merge: round %d of the grid extension: %w", round+1, err)
		}
		trials, results = o.Trials, o.Results
	}
}
