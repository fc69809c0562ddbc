package suitereport

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ideabench/ideabench/internal/testkit"
)

// TestReadBound: a suite report file beyond MaxBytes is refused before
// it is read, naming the file and the bound; the golden suite reports
// are far within it.
func TestReadBound(t *testing.T) {
	path := testkit.SparseFile(t, MaxBytes+1)
	_, err := Read(path)
	require.ErrorContains(t, err, "suite: "+path+": more than 32 MiB, larger than any file of this kind; check the path")
	for _, g := range []string{"../golden/suite_ci_1.snap.json", "../golden/suite_recall_ci_1.snap.json"} {
		st, err := os.Stat(g)
		require.NoError(t, err)
		require.Less(t, st.Size(), int64(MaxBytes/1000), g)
	}
}
