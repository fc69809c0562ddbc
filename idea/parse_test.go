package idea

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	c, err := Parse("gate:rho=0.9,beta=0.5")
	require.NoError(t, err)
	require.Equal(t, "gate", c.Name)
	rho, _ := c.Params.Get("rho")
	require.Equal(t, 0.9, rho)
	c, err = Parse("conv")
	require.NoError(t, err)
	require.Equal(t, Config{Name: "conv", Params: NewParams(map[string]float64{})}, c)
	for _, tc := range []struct{ in, want string }{
		{"nope", "nope"},
		{"gate:rho", "want name=number"},
		{"gate:rho=x", "parameter rho"},
		{"gate:rho=0.9,rho=0.8", "given twice"},
		{"gate:rho=NaN", "parameter rho"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Parse(tc.in)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
