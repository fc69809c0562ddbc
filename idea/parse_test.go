package idea

import (
	"regexp"
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

// hintRE finds the value a message suggests: "such as width=3", "use
// e.g. 3", "such as 0.8".
var hintRE = regexp.MustCompile(`(?:such as|e\.g\.) (?:\w+=)?(-?[0-9.]+)`)

// TestHintsWork: every value an idea's parameter errors suggest, pasted
// back, is accepted (a hint of width=0.5 for conv's integer width was
// not). Each parameter of every registered idea gets a value that does
// not parse and values out of any range.
func TestHintsWork(t *testing.T) {
	for _, name := range Names() {
		spec, _ := Lookup(name)
		for _, p := range spec.Params {
			for _, v := range []string{"x", "NaN", "-1e9", "-0.5", "0.5", "1.5", "1e9"} {
				t.Run(name+"/"+p.Name+"="+v, func(t *testing.T) {
					_, err := Parse(name + ":" + p.Name + "=" + v)
					if err == nil {
						return
					}
					m := hintRE.FindStringSubmatch(err.Error())
					require.NotNil(t, m, "the error suggests a value: %v", err)
					_, err = Parse(name + ":" + p.Name + "=" + m[1])
					require.NoError(t, err, "the suggested %s=%s", p.Name, m[1])
				})
			}
		}
	}
}
