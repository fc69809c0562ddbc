package protocol

import (
	"github.com/ideabench/ideabench/idea"
	"os"
	"path/filepath"
	"testing"

	"github.com/ideabench/ideabench/internal/jsonstrict/stricttest"
	"github.com/ideabench/ideabench/transformer"
	"github.com/stretchr/testify/require"
)

func TestLoadProtocol(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       string // error substring; empty for valid
		check      func(t *testing.T, p Protocol)
	}{
		{"empty_keeps_profile", `{}`, "", func(t *testing.T, p Protocol) { require.Equal(t, CIProfile(), p) }},
		{"grid_replaces_whole", `{"idea":[{"lr":0.1,"epochs":1,"rho":0.5,"beta":2}], "unequal_budget": true, "different_recipe": true}`, "", func(t *testing.T, p Protocol) {
			require.Equal(t, []Cfg{{LR: 0.1, Epochs: 1, Rho: 0.5, Beta: 2}}, p.Idea)
		}},
		// The arms' budgets must agree: an idea arm given more epochs
		// than the baseline is refused unless the config opts in.
		{"unequal_epochs", `{"idea":[{"lr":0.005,"epochs":6,"rho":0.8,"beta":0.5},{"lr":0.015,"epochs":3,"rho":0.8,"beta":0.5},{"lr":0.045,"epochs":3,"rho":0.8,"beta":0.5}]}`,
			`idea[0].epochs = 6: the baseline's cfg 0 has 3`, nil},
		{"fewer_cfgs", `{"idea":[{"lr":0.1,"epochs":3,"rho":0.5,"beta":2}]}`, `idea: 1 cfgs against the baseline's 3`, nil},
		{"more_patience", `{"baseline":[{"lr":0.1,"epochs":3,"patience":1}],"idea":[{"lr":0.1,"epochs":3,"patience":2,"rho":0.5,"beta":2}]}`,
			`idea[0].patience = 2: the baseline's cfg 0 has 1`, nil},
		// The same budgets in another order are equal on fixed grids.
		{"budgets_reordered", `{"baseline":[{"lr":0.1,"epochs":3},{"lr":0.2,"epochs":6}],"idea":[{"lr":0.1,"epochs":6,"rho":0.5,"beta":2},{"lr":0.2,"epochs":3,"rho":0.5,"beta":2}],"extend_grid":null}`, "", func(t *testing.T, p Protocol) {
			require.Empty(t, p.BudgetDiffs())
		}},
		{"opt_in", `{"idea":[{"lr":0.005,"epochs":6,"patience":3,"rho":0.8,"beta":0.5},{"lr":0.015,"epochs":3,"patience":3,"rho":0.8,"beta":0.5},{"lr":0.045,"epochs":3,"patience":3,"rho":0.8,"beta":0.5}],"unequal_budget":true,"different_recipe":true}`, "", func(t *testing.T, p Protocol) {
			require.Equal(t, []string{"idea[0].epochs = 6: the baseline's cfg 0 has 3"}, p.BudgetDiffs())
		}},
		// Grids whose budgets agree only as a whole grow apart under a
		// grid extension (each arm grows by copies of its edge cfgs), so
		// with one they must agree cfg by cfg (budgets_reordered: fixed
		// grids may pair in any order).
		{"reordered_epochs_extended", `{"baseline":[{"lr":0.01,"epochs":2},{"lr":0.03,"epochs":3}],"idea":[{"lr":0.01,"epochs":3,"rho":0.5,"beta":2},{"lr":0.03,"epochs":2,"rho":0.5,"beta":2}]}`,
			`idea[0].epochs = 3: the baseline's cfg 0 has 2; idea[1].epochs = 2: the baseline's cfg 1 has 3`, nil},
		// The arms' recipes must agree cfg by cfg: an idea arm trained
		// without the baseline's weight decay is refused unless the
		// config opts in, and then each difference is listed.
		{"different_recipe", `{"baseline":[{"lr":0.1,"epochs":3,"weight_decay":0.1,"clip":1}],"idea":[{"lr":0.1,"epochs":3,"clip":1,"rho":0.5,"beta":2}]}`,
			`idea[0].weight_decay = 0: the baseline's cfg 0 has 0.1; an arm trained with other optimizer settings`, nil},
		{"different_schedule", `{"baseline":[{"lr":0.1,"epochs":3}],"idea":[{"lr":0.1,"epochs":3,"schedule":"cosine","warmup":0.1,"rho":0.5,"beta":2}]}`,
			`idea[0].schedule = "cosine": the baseline's cfg 0 has "constant"; idea[0].warmup = 0.1: the baseline's cfg 0 has 0`, nil},
		{"same_recipe_spelt_apart", `{"baseline":[{"lr":0.1,"epochs":3,"schedule":"constant"}],"idea":[{"lr":0.1,"epochs":3,"rho":0.5,"beta":2}]}`, "", func(t *testing.T, p Protocol) {
			require.Empty(t, p.RecipeDiffs(), `"" is the constant schedule`)
		}},
		{"recipe_opt_in", `{"baseline":[{"lr":0.1,"epochs":3,"clip":1}],"idea":[{"lr":0.1,"epochs":3,"clip":2,"rho":0.5,"beta":2}],"different_recipe":true}`, "", func(t *testing.T, p Protocol) {
			require.Equal(t, []string{"idea[0].clip = 2: the baseline's cfg 0 has 1"}, p.RecipeDiffs())
		}},
		// A config names the profile it is applied over, and cannot
		// switch it (the seed profile's test is sign-flip).
		{"profile_switch", `{"profile":"seed"}`, `profile = "seed": the config is applied over the "ci" profile`, nil},
		{"profile_unknown", `{"profile":"foo"}`, `profile = "foo"`, nil},
		{"profile_same", `{"profile":"ci"}`, "", func(t *testing.T, p Protocol) { require.Equal(t, CIProfile(), p) }},
		{"test_unknown", `{"test":"t-test"}`, `test = "t-test": unknown headline test`, nil},
		{"test_visible", `{"test":"sign-flip"}`, "", func(t *testing.T, p Protocol) { require.Equal(t, TestSignFlip, p.Test) }},
		// A partial entry does not inherit the profile's epochs.
		{"partial_entry", `{"idea":[{"lr":0.1}]}`, "idea[0].epochs = 0: must be in [1, ", nil},
		{"unknown_field", `{"lr":0.1}`, `unknown field "lr"`, nil},
		{"one_seed", `{"seeds":[3]}`, "seeds = [3]: a paired comparison needs at least 2 seeds", nil},
		{"empty_grid", `{"baseline":[]}`, "baseline = []: empty grid", nil},
		{"gated_baseline", `{"baseline":[{"lr":0.1,"epochs":1,"rho":0.5,"beta":1}]}`, "baseline[0].beta = 1", nil},
		{"heads", `{"arch":{"d":32,"heads":5,"layers":2,"batch":32}}`, "arch.heads = 5: must divide arch.d = 32", nil},
		{"track", `{"track":"parquet"}`, `track = "parquet"`, nil},
		{"csv_missing", `{"track":"csv"}`, `csv: missing`, nil},
		{"csv_fields", `{"track":"csv","csv":{"path":"x.csv","t":0,"h":96}}`, `csv.target is empty`, nil},
		{"csv_period", `{"track":"csv","csv":{"path":"x.csv","target":"OT","t":96,"h":96,"period":-1}}`, `csv.period = -1 must be >= 0`, nil},
		{"windows", `{"panel":{"train_windows":0}}`, "panel.train_windows = 0:", nil},
		{"panel_missing", `{"panel":null}`, "panel: missing", nil},
		{"truncated", `{"seeds":[0,`, "config", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.json")
			require.NoError(t, os.WriteFile(path, []byte(tc.json), 0o644))
			p, err := Load(path, CIProfile())
			if tc.want != "" {
				require.ErrorContains(t, err, tc.want)
				require.ErrorContains(t, err, path)
				return
			}
			require.NoError(t, err)
			tc.check(t, p)
		})
	}
}

func TestProfiles(t *testing.T) {
	for _, name := range []string{"full", "seed", "ci"} {
		for _, trk := range []string{"", "panel", "sequence"} {
			p, err := ProfileFor(name, trk)
			require.NoError(t, err)
			require.NoError(t, p.Validate(), "%s on %q", name, trk)
			// 8 seeds; the full profile tunes 6 cfgs an arm (twice its 3
			// rates), ci 3 (its rates), seed keeps its 3 fixed ones.
			want := map[string]int{"full": 96, "ci": 48, "seed": 48}[name]
			require.Len(t, p.Trials(), want, "%s on %q", name, trk)
			require.Equal(t, name, p.Profile)
			require.Equal(t, name != "seed", p.Tune != nil, "full and ci tune, seed does not")
		}
	}
	// The seed profile is the seed report's protocol; full and ci give
	// both arms the same training, the idea arm the gate.
	require.Equal(t, "sequence", SeedProfile().Track)
	require.Equal(t, []Cfg{{LR: 0.001, Epochs: 8}, {LR: 0.003, Epochs: 8}, {LR: 0.006, Epochs: 8}}, SeedProfile().Baseline)
	for _, trk := range []string{"panel", "csv"} {
		p := FullProfile(trk)
		for i, c := range p.Idea {
			c.Rho, c.Beta = 0, 0
			require.Equal(t, p.Baseline[i], c, "%s: idea cfg %d", trk, i)
		}
	}
	require.Equal(t, transformer.NormLast, FullProfile("csv").Arch.Norm, "instance normalization is on for the csv track")
	_, err := Profile("nope")
	require.ErrorContains(t, err, `"nope" is unknown`)
}

// TestParseProtocolStrict: a config with trailing data or an unknown key
// is refused where the fault is.
func TestParseProtocolStrict(t *testing.T) {
	stricttest.Refuses(t, []byte("{\n  \"seeds\": [0, 1, 2]\n}\n"), func(raw []byte) error {
		_, err := Parse(raw, "c.json", CIProfile())
		return err
	})
}

// TestWithIdeaGateDefaults: the gate given without a parameter takes its
// default, as every idea does (rho 0.9, beta 0.5), not 0: beta 0 would
// be the baseline.
func TestWithIdeaGateDefaults(t *testing.T) {
	for _, c := range []struct {
		spec      string
		rho, beta float64
	}{
		{"gate", 0.9, 0.5},
		{"gate:rho=0.8", 0.8, 0.5},
		{"gate:beta=0", 0.9, 0},
		{"gate:rho=0.7,beta=2", 0.7, 2},
	} {
		t.Run(c.spec, func(t *testing.T) {
			ic, err := idea.Parse(c.spec)
			require.NoError(t, err)
			cfg := Cfg{LR: 0.001, Epochs: 1}.WithIdea(ic)
			require.Equal(t, c.rho, cfg.Rho)
			require.Equal(t, c.beta, cfg.Beta)
		})
	}
}
