package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/trial"

	"io"
)

// workspace is the folder external trials run in: external/ of the
// results directory, so a resumed run finds the first runs' forecasts,
// else a temporary folder removed by the returned func. nil without
// external trainers.
func workspace(p protocol.Protocol, store *trial.Store) (*trial.Workspace, func(), error) {
	if !p.External() {
		return nil, func() {}, nil
	}
	if store != nil {
		ws, err := trial.NewWorkspace(filepath.Join(store.Dir, "external"))
		return ws, func() {}, err
	}
	dir, err := os.MkdirTemp("", "ideabench-external-")
	if err != nil {
		return nil, nil, err
	}
	ws, err := trial.NewWorkspace(dir)
	return ws, func() { os.RemoveAll(dir) }, err
}

// rerunRecord keeps a rerun check in the workspace, so a resumed run
// does not repeat it.
type rerunRecord struct {
	ID           string                 `json:"id"` // the trial's id
	Reproduction *protocol.Reproduction `json:"reproduction"`
}

// rerunCheck runs the determinism check of p's external trials
// (RerunTrial, trial.Rerun), or reads it back from the workspace; nil
// when no external trial finished without diverging.
func rerunCheck(ctx context.Context, ws *trial.Workspace, others []string, p protocol.Protocol, ds *track.Dataset, dataSHA string, trials []protocol.Trial, results []trial.Result) (*protocol.Reproduction, error) {
	i, ok := derive.RerunTrial(p, trials, results)
	if !ok || ws == nil {
		return nil, nil
	}
	id := p.Key(trials[i], dataSHA).ID()
	path := filepath.Join(ws.Dir, "rerun.json")
	if rep, err := readRerun(path, id); err == nil {
		return rep, nil
	}
	rep, err := trial.Rerun(ctx, ws, others, p, ds, dataSHA, trials[i], results[i])
	if err != nil {
		t := trials[i]
		if errors.Is(err, trial.ErrInterrupted) {
			return nil, err
		}
		return nil, fmt.Errorf("harness: the rerun check of trial %s cfg %d seed %d: %w", t.Arm, t.Cfg, t.Seed, err)
	}
	err = atomicfile.Write(path, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(rerunRecord{ID: id, Reproduction: rep})
	})
	return rep, err
}

// readRerun reads the rerun check of trial id kept at path strictly
// (jsonstrict); an error when there is none to trust.
func readRerun(path, id string) (*protocol.Reproduction, error) {
	var rec rerunRecord
	if err := jsonstrict.ReadFile(path, "rerun record", &rec); err != nil {
		return nil, err
	}
	if rec.ID != id || rec.Reproduction == nil {
		return nil, fmt.Errorf("%s: the rerun check of another trial", path)
	}
	return rec.Reproduction, nil
}
