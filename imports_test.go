package ideabench_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
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
// protocol.Coster).
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
}
