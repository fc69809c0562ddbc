package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDeployFiles: the Kubernetes Job speaks this command's language: an
// Indexed Job whose IDEABENCH_SHARDS equals its completions, a results
// volume shared with the merge Job, and arguments this binary accepts.
func TestDeployFiles(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("../../deploy/k8s/" + name)
		require.NoError(t, err)
		return string(b)
	}
	job, merge, pvc := read("indexed-job.yaml"), read("merge-job.yaml"), read("results-pvc.yaml")
	require.Contains(t, job, "completionMode: Indexed")
	completions := regexp.MustCompile(`(?m)^\s+completions: (\d+)$`).FindStringSubmatch(job)
	require.NotNil(t, completions)
	shards := regexp.MustCompile(`name: ` + envShards + `\s+value: "(\d+)"`).FindStringSubmatch(job)
	require.NotNil(t, shards, "the Job sets %s", envShards)
	require.Equal(t, completions[1], shards[1], "%s must equal completions", envShards)

	claim := regexp.MustCompile(`(?m)^\s+name: (\S+)$`).FindStringSubmatch(pvc)
	require.NotNil(t, claim)
	for _, f := range []string{job, merge} {
		require.Contains(t, f, "claimName: "+claim[1])
		require.Contains(t, f, "mountPath: /results")
	}
	require.Contains(t, job, `args: ["run", "--results", "/results"`)
	require.Contains(t, merge, `args: ["merge", "--out", "/results/ideabench-report.json", "/results"]`)
	require.True(t, strings.Contains(job, "backoffLimitPerIndex"), "a failed pod is retried with its index")
}

// TestExamples: the example configs build a valid protocol, each with
// the flags its page gives it (etth1.json leaves the file to --data).
func TestExamples(t *testing.T) {
	names, err := filepath.Glob("../../examples/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	flags := map[string][]string{"etth1.json": {"--data", "../../track/testdata/tiny.csv"}}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			fs := newFlags("run")
			pf := protocolFlags(fs, &bytes.Buffer{})
			require.NoError(t, fs.Parse(append([]string{"--config", name}, flags[filepath.Base(name)]...)))
			_, err := pf.protocol()
			require.NoError(t, err)
		})
	}
}
