package harness

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/ideabench/ideabench/internal/kernel"
)

// Machine says what machine this process runs on, for a report's run
// block (report.RunInfo.Machine): the OS and architecture, the CPU's
// model where the system says it (Linux's /proc/cpuinfo), the cores Go
// sees and the path the kernels took (kernel.Impl: AVX-512, AVX2 or
// the pure-Go one).
func Machine() string {
	cpu := ""
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(raw)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v) + ", "
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %s%d cores, kernels %s", runtime.GOOS, runtime.GOARCH, cpu, runtime.NumCPU(), kernel.Impl())
}

// Now is the time a report is written, as its run block records it
// (report.RunInfo.Finished): UTC, RFC 3339, to the second.
func Now() string { return time.Now().UTC().Format(time.RFC3339) }
