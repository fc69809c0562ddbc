package ideabench_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/ideabench/ideabench/"

// goList runs go list with format f on the module's packages (tests
// aside) and returns its lines.
func goList(t *testing.T, f string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append([]string{"list", "-f", f}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestImportGraph: the gate is an ordinary idea, so package gate is
// imported by package idea alone (its seed-schema adapter, idea/gate.go),
// and a report is read and written without a trainer: package report
// depends on no package that trains (trial, harness, the transformer;
// the protocol takes the model's costs from trial.Costs as a
// protocol.Coster). Drawing a report (plots) compiles the same set and
// the suite report's reader, no derivation and no trainer: the set is
// pinned, so a new arrow into it is a decision, not a drift.
func TestImportGraph(t *testing.T) {
	for _, line := range goList(t, `{{.ImportPath}} {{join .Imports " "}}`, "./...") {
		pkg, imports, _ := strings.Cut(line, " ")
		if pkg == module+"idea" {
			continue
		}
		require.NotContains(t, strings.Fields(imports), module+"gate", "%s imports package gate: reach it through package idea's gate adapter", pkg)
	}
	for _, dep := range goList(t, `{{.ImportPath}}`, "-deps", "./report") {
		require.NotContains(t, []string{module + "trial", module + "harness", module + "transformer"}, dep, "package report depends on the trainer package %s", dep)
	}
	// The packages a reader of reports compiles, the module's only.
	reader := []string{"idea", "gate", "internal/kernel", "internal/vmath", "internal/num", "internal/archname", "internal/inputfile",
		"internal/jsonstrict", "internal/recent", "internal/atomicfile", "stats", "track", "protocol"}
	for _, tc := range []struct {
		pkg  string
		want []string
	}{
		{"report", reader},
		{"plots", append(slices.Clone(reader), "report", "suitereport")},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			var got []string
			for _, dep := range goList(t, `{{.ImportPath}}`, "-deps", "./"+tc.pkg) {
				if rel, ok := strings.CutPrefix(dep, module); ok && rel != tc.pkg {
					got = append(got, rel)
				}
			}
			require.ElementsMatch(t, tc.want, got, "the module's packages %s compiles: no derivation (derive), no trainer (trial, transformer, harness)", tc.pkg)
		})
	}
}
