package report

import (
	"encoding/json"
	"fmt"
	"strings"
)

// SeedSchema lists every field of the seed report
// (testdata/seed-report.json), each required in a report: "[]" stands for
// every element of an array. TestSeedSchema derives it from the fixture.
var SeedSchema = []string{
	"bench_version",
	"track",
	"model",
	"metric_direction",
	"n_seeds",
	"baseline",
	"baseline.best_cfg",
	"baseline.best_cfg.lr",
	"baseline.best_cfg.epochs",
	"baseline.best_cfg.rho",
	"baseline.best_cfg.beta",
	"baseline.sweep",
	"baseline.sweep[].cfg",
	"baseline.sweep[].cfg.lr",
	"baseline.sweep[].cfg.epochs",
	"baseline.sweep[].cfg.rho",
	"baseline.sweep[].cfg.beta",
	"baseline.sweep[].mean",
	"baseline.full",
	"baseline.full.mean",
	"baseline.full.std",
	"baseline.full.per_seed",
	"baseline.full.n",
	"idea",
	"idea.mean",
	"idea.std",
	"idea.per_seed",
	"idea.n",
	"comparison",
	"comparison.delta_mean",
	"comparison.idea_wins",
	"comparison.n_pairs",
	"comparison.per_seed_diffs",
	"comparison.p_value",
	"comparison.mde",
	"comparison.mde_rel_pct",
	"comparison.verdict",
	"comparison.system_worked",
	"mechanism_signature",
	"mechanism_signature.track_rationale",
	"mechanism_signature.observed_best_cfg",
	"mechanism_signature.observed_best_cfg.lr",
	"mechanism_signature.observed_best_cfg.epochs",
	"mechanism_signature.observed_best_cfg.rho",
	"mechanism_signature.observed_best_cfg.beta",
	"mechanism_signature.idea_sweep",
	"mechanism_signature.idea_sweep[].cfg",
	"mechanism_signature.idea_sweep[].cfg.lr",
	"mechanism_signature.idea_sweep[].cfg.epochs",
	"mechanism_signature.idea_sweep[].cfg.rho",
	"mechanism_signature.idea_sweep[].cfg.beta",
	"mechanism_signature.idea_sweep[].result",
	"mechanism_signature.idea_sweep[].result.mean",
	"mechanism_signature.idea_sweep[].result.std",
	"mechanism_signature.idea_sweep[].result.per_seed",
	"mechanism_signature.idea_sweep[].result.n",
	"mechanism_signature.mechanism_signature",
	"mechanism_signature.mechanism_signature.trained_model_seed",
	"mechanism_signature.mechanism_signature.metric",
	"mechanism_signature.mechanism_signature.initial_gain",
	"mechanism_signature.mechanism_signature.final_gain",
	"mechanism_signature.mechanism_signature.mean_state",
	"mechanism_signature.mechanism_signature.predicted_steady_gain",
	"mechanism_signature.mechanism_signature.fitted_state_pole",
	"mechanism_signature.mechanism_signature.rho",
	"mechanism_signature.mechanism_signature.beta",
	"mechanism_signature.mechanism_signature.confirmed",
	"mechanism_signature.math_check",
	"mechanism_signature.math_check.rows",
	"mechanism_signature.math_check.rows[].rho",
	"mechanism_signature.math_check.rows[].steady_gain_abs_error",
	"mechanism_signature.math_check.rows[].half_observed",
	"mechanism_signature.math_check.rows[].half_predicted",
	"mechanism_signature.math_check.confirmed",
	"mechanism_signature.protocol",
	"mechanism_signature.protocol.seeds",
	"mechanism_signature.protocol.epochs",
	"mechanism_signature.protocol.baseline_lr_grid",
	"mechanism_signature.protocol.idea_lr_grid",
}

// reportKeys are the top-level fields of which a file must have at least
// one to be taken for a report at all.
var reportKeys = []string{"bench_version", "baseline", "idea", "comparison", "mechanism_signature"}

// SchemaCheck returns an error when raw (a JSON object) has none of the
// report's top-level fields, and otherwise the seed-schema fields it
// lacks, with indices ("baseline.sweep[1].mean"), in schema order.
func SchemaCheck(raw []byte, name string) ([]string, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, nil // the decoder names it
	}
	found := false
	for _, k := range reportKeys {
		_, ok := doc[k]
		found = found || ok
	}
	if !found {
		return nil, fmt.Errorf("report: %s is not an ideabench report: it has none of the fields %s; verify and plot take the JSON report that ideabench run writes", name, strings.Join(reportKeys, ", "))
	}
	var missing []string
	seen := map[string]bool{}
	for _, path := range SeedSchema {
		for _, m := range missingAt(doc, "", strings.Split(path, ".")) {
			if !seen[m] {
				seen[m] = true
				missing = append(missing, m)
			}
		}
	}
	return missing, nil
}

// missingAt returns the paths under v, named from prefix, where the rest
// of a schema path (its dot-separated parts) is absent.
func missingAt(v any, prefix string, parts []string) []string {
	if len(parts) == 0 {
		return nil
	}
	key, each := strings.CutSuffix(parts[0], "[]")
	obj, ok := v.(map[string]any)
	if !ok {
		return nil // a wrong type is the decoder's error, or an element of another shape
	}
	name := key
	if prefix != "" {
		name = prefix + "." + key
	}
	x, ok := obj[key]
	if !ok {
		if len(parts) == 1 || each {
			return []string{name}
		}
		return nil // reported at its parent
	}
	if !each {
		return missingAt(x, name, parts[1:])
	}
	arr, _ := x.([]any)
	var out []string
	for i, e := range arr {
		out = append(out, missingAt(e, fmt.Sprintf("%s[%d]", name, i), parts[1:])...)
	}
	return out
}
