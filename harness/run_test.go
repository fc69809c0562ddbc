package harness

import (
	"context"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/testkit"

	"github.com/stretchr/testify/require"
)

// TestWorkersBitIdentical: the report does not depend on the number of
// workers.
func TestWorkersBitIdentical(t *testing.T) {
	p := testkit.TinyProtocol()
	one, err := Run(context.Background(), p, Options{Workers: 1})
	require.NoError(t, err)
	two, err := Run(context.Background(), p, Options{Workers: 3})
	require.NoError(t, err)
	a, err := one.Report.Marshal()
	require.NoError(t, err)
	b, err := two.Report.Marshal()
	require.NoError(t, err)
	require.Equal(t, string(a), string(b))
	require.Empty(t, derive.Verify(one.Report, derive.VerifyOptions{Rerun: true}).Mismatches())
}
