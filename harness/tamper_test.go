package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// leaf is one scalar of a report (testkit.Leaf), with the digest that
// covers it when it is one of setup.digests.
type leaf struct {
	testkit.Leaf
	digest string
}

// leaves lists every scalar of doc in document order (testkit.Leaves).
func leaves(doc any) []leaf {
	var out []leaf
	for _, l := range testkit.Representatives(testkit.Leaves(doc)) {
		x := leaf{Leaf: l}
		if len(l.Keys) == 3 && l.Keys[0] == "setup" && l.Keys[1] == "digests" {
			x.digest = l.Keys[2].(string)
		}
		out = append(out, x)
	}
	return out
}

// sweepLeaves changes every leaf of the report r in turn (with -long;
// else one of each kind at both ends of its arrays,
// testkit.Representatives) and checks that
// verify rejects each change naming the leaf: a finding on the leaf, on
// an ancestor (the digest of the input holding it), or for a digest the
// input it covers; a change the decoder refuses must name the leaf too.
// No leaf is exempt: every derived leaf is rebuilt by Derive and
// compared, every input is covered by its digest (Setup.Digests), the run
// block by its own (docs/report.md, the report and verify).
//
// It checks too that the inputs are digested exactly where they are read
// back (report.ReadInputs): a change moves the values verify derives
// again from if and only if it moves a digest, each moved digest's path
// names the leaf, and every input with a leaf in the report has its
// digest moved by some change. So an input read back but not digested, digested but not
// read back, or digested under another path than its own fails here.
func sweepLeaves(t *testing.T, r *report.Report) (total, named int) {
	t.Helper()
	raw, err := r.Marshal()
	require.NoError(t, err)
	rt, err := report.Parse(raw, "report")
	require.NoError(t, err)
	require.Empty(t, derive.Verify(rt, derive.VerifyOptions{}).Findings, "the untouched report must verify")
	in0, read0 := rt.ReadInputs()
	dropCfgs(&in0)
	d0 := report.Digests(read0)
	var doc any
	require.NoError(t, json.Unmarshal(raw, &doc))
	ls := leaves(doc)
	// Each derivation once per set of inputs: an edit of a derived leaf
	// is checked against the untouched inputs' derivation.
	memo := &derive.Memo{}
	silent := make([]string, len(ls))
	unbound := make([]string, len(ls))
	moved := make([][]string, len(ls))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, l := range ls {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			edited, err := testkit.Tamper(raw, l.Keys)
			if err != nil {
				silent[i] = fmt.Sprintf("%s: not changed: %v", l.Path, err)
				return
			}
			bad, err := report.Parse(edited, "edited")
			if err != nil {
				if !strings.Contains(err.Error(), l.Path) {
					silent[i] = fmt.Sprintf("%s: refused without naming it: %v", l.Path, err)
				}
				return
			}
			in1, read1 := bad.ReadInputs()
			dropCfgs(&in1)
			d1 := report.Digests(read1)
			for _, k := range slices.Sorted(maps.Keys(d1)) {
				if d1[k] != d0[k] {
					moved[i] = append(moved[i], k)
				}
			}
			switch readBack := !reflect.DeepEqual(in0, in1); {
			case readBack && len(moved[i]) == 0:
				unbound[i] = l.Path + ": read back, but no digest moved"
			case !readBack && len(moved[i]) > 0:
				unbound[i] = fmt.Sprintf("%s: digests %q moved, but nothing read back did", l.Path, moved[i])
			case len(moved[i]) > 1 || len(moved[i]) == 1 && !testkit.Names(moved[i][0], l.Path):
				unbound[i] = fmt.Sprintf("%s: digests %q moved, not that of the input holding it", l.Path, moved[i])
			}
			want := l.Path
			if l.digest != "" {
				want = l.digest
			}
			for _, f := range derive.Verify(bad, derive.VerifyOptions{Memo: memo}).Mismatches() {
				if testkit.Names(f.Field, want) {
					return
				}
			}
			silent[i] = l.Path
		})
	}
	wg.Wait()
	for _, s := range silent {
		if s == "" {
			named++
			continue
		}
		t.Errorf("unnamed edit: %s", s)
	}
	for _, s := range unbound {
		if s != "" {
			t.Errorf("input not digested where it is read back: %s", s)
		}
	}
	edited := map[string]bool{}
	for _, ks := range moved {
		for _, k := range ks {
			edited[k] = true
		}
	}
	for _, in := range read0 {
		has := slices.ContainsFunc(ls, func(l leaf) bool { return l.digest == "" && testkit.Names(in.Path, l.Path) })
		if has && !edited[in.Path] {
			t.Errorf("input %s: no edit of its leaves moved its digest", in.Path)
		}
	}
	return len(ls), named
}

// dropCfgs clears the sweep rows' cfgs of in: they are read for the grids
// a grid extension grew, but are no input (Derive sets them).
func dropCfgs(in *report.Raw) {
	arms := []*report.RawArm{&in.Baseline, &in.Idea}
	for k := range in.Ideas {
		arms = append(arms, &in.Ideas[k])
	}
	for _, a := range arms {
		for j := range a.Rows {
			a.Rows[j].Cfg = protocol.Cfg{}
		}
	}
}

// TestVerifyEveryLeaf: every leaf of a ci-profile report, of csv
// reports, of a report with an idea's laws and an external trainer, and
// of a sequential report with a further idea arm and a diverged cfg,
// changed alone, is rejected by verify with a finding that names it; and
// every input is digested where it is read back (sweepLeaves).
func TestVerifyEveryLeaf(t *testing.T) {
	t.Run("ci", func(t *testing.T) {
		o, err := Run(context.Background(), protocol.CIProfile(), Options{})
		require.NoError(t, err)
		o.Report.SetRun(report.RunInfo{WallSeconds: 1.5, Workers: 2, GoVersion: "go1.26", Version: "test", TrialsRun: len(o.Trials), Results: "r.trials"})
		total, named := sweepLeaves(t, o.Report)
		t.Logf("ci report: %d of %d leaves named", named, total)
	})
	// A csv track with the skip path (informativeness.linear_part) and a
	// file with a repeated timestamp and a gap (setup.data_notes).
	t.Run("csv", func(t *testing.T) {
		raw, err := os.ReadFile("../track/testdata/tiny.csv")
		require.NoError(t, err)
		lines := strings.SplitAfter(string(raw), "\n")
		lines = append(lines[:51], lines[50:]...)   // row 50 twice
		lines = append(lines[:120], lines[121:]...) // one hour missing
		path := filepath.Join(t.TempDir(), "notes.csv")
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644))
		p := protocol.CIProfileFor("csv")
		p.CSV = &track.CSVConfig{Path: path, Target: "OT", T: 24, H: 6}
		p.Arch.Patch = 4
		p.Seeds = []uint64{0, 1, 2}
		p.Baseline, p.Idea = p.Baseline[:2], p.Idea[:2]
		o, err := Run(context.Background(), p, Options{})
		require.NoError(t, err)
		require.Len(t, o.Report.Setup.DataNotes, 2)
		require.NotNil(t, o.Report.Informativeness.LinearPart)
		total, named := sweepLeaves(t, o.Report)
		t.Logf("csv report: %d of %d leaves named", named, total)
	})
	// The multivariate setting: every column its own series, the
	// references shared and per channel.
	t.Run("csv independent", func(t *testing.T) {
		p := protocol.CIProfileFor("csv")
		p.CSV = &track.CSVConfig{Path: "../track/testdata/tiny.csv", Channels: track.ChannelsIndependent, T: 24, H: 6}
		p.Arch.Patch = 4
		p.Seeds = []uint64{0, 1, 2}
		p.Baseline, p.Idea = p.Baseline[:2], p.Idea[:2]
		o, err := Run(context.Background(), p, Options{})
		require.NoError(t, err)
		f := o.Report.ReferenceForecasters
		require.NotNil(t, f.LinearCentredPerChannel)
		require.NotNil(t, f.Val.LinearARPerChannel)
		total, named := sweepLeaves(t, o.Report)
		t.Logf("csv independent report: %d of %d leaves named", named, total)
	})
	// A grid that tunes the look-back: references at each, chosen on val.
	t.Run("csv look-backs", func(t *testing.T) {
		p := protocol.CIProfileFor("csv")
		p.CSV = &track.CSVConfig{Path: "../track/testdata/tiny.csv", Target: "OT", Features: []string{"OT"}, T: 24, H: 6}
		p.Arch.Patch = 4
		p.Seeds = []uint64{0, 1, 2}
		p.Baseline, p.Idea = p.Baseline[:1], p.Idea[:1]
		for _, arm := range []*[]protocol.Cfg{&p.Baseline, &p.Idea} {
			c := (*arm)[0]
			c.Context = 12
			*arm = append(*arm, c)
		}
		o, err := Run(context.Background(), p, Options{})
		require.NoError(t, err)
		ctx := o.Report.ReferenceForecasters.Contexts
		require.Contains(t, ctx, "linear_ar")
		require.Contains(t, ctx, "linear_centred")
		require.Equal(t, 24, ctx["seasonal_persistence"], "the day's period fits only the longer look-back")
		total, named := sweepLeaves(t, o.Report)
		t.Logf("csv look-backs report: %d of %d leaves named", named, total)
	})
	// An idea whose probe measures laws (no gate layers) against a
	// baseline trained by an external trainer (external.rerun).
	t.Run("laws external", func(t *testing.T) {
		p := testkit.TinyProtocol()
		for j := range p.Idea {
			p.Idea[j].Rho, p.Idea[j].Beta = 0, 0
			p.Idea[j].Idea, p.Idea[j].Params = "ema", idea.NewParams(map[string]float64{"lambda": 0.7})
		}
		p.Trainers = map[string]*protocol.Trainer{"baseline": fakeCommand(t, "ok")}
		o, err := Run(context.Background(), p, Options{})
		require.NoError(t, err)
		s := o.Report.MechanismSignature.MechanismSignature
		require.NotEmpty(t, s.Laws)
		require.Empty(t, s.Layers)
		require.NotNil(t, o.Report.External.Rerun)
		total, named := sweepLeaves(t, o.Report)
		t.Logf("laws and external report: %d of %d leaves named", named, total)
	})
	// A token track with a further idea arm: the accuracy block, its
	// seeds solved and its time to target.
	t.Run("tokens", func(t *testing.T) {
		p := protocol.CIProfileFor("mqar")
		p.Seeds = p.Seeds[:4]
		p.Baseline, p.Idea = p.Baseline[:2], p.Idea[:2]
		p.Ideas = []protocol.IdeaArm{{Name: "fox", Grid: protocol.IdeaGrid(p.Baseline, idea.Config{Name: "fox"})}}
		o, err := Run(context.Background(), p, Options{})
		require.NoError(t, err)
		a := o.Report.Accuracy
		require.NotNil(t, a.Solves)
		require.NotNil(t, a.TimeToTarget)
		require.Len(t, a.TimeToTarget.Arms, 2)
		total, named := sweepLeaves(t, o.Report)
		t.Logf("tokens report: %d of %d leaves named", named, total)
	})
	t.Run("sequential", func(t *testing.T) {
		p := testkit.TinyProtocol()
		ema := idea.Config{Name: "ema", Params: idea.NewParams(map[string]float64{"lambda": 0.7})}
		diverge := p.Baseline[1].WithIdea(ema)
		diverge.LR = 1e10
		p.Ideas = []protocol.IdeaArm{{Name: "ema", Grid: []protocol.Cfg{p.Baseline[0].WithIdea(ema), diverge}}}
		p.Sequential = &protocol.Sequential{MaxSeeds: 6}
		o, err := Run(context.Background(), p, Options{})
		require.NoError(t, err)
		require.NotNil(t, o.Report.Diverged, "the lr 1e10 cfg diverges")
		total, named := sweepLeaves(t, o.Report)
		t.Logf("sequential report: %d of %d leaves named", named, total)
	})
}
