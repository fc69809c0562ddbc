package golden

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"drops_run", `{"a":1,"run":{"wall_seconds":3.2}}`, "{\n  \"a\": 1\n}\n"},
		// Digests hash full-precision values; the rounded values stand for them.
		{"drops_digests", `{"setup":{"digests":{"x":"ab12"},"trials_sha256":"cd34"}}`, "{\n  \"setup\": {\n    \"trials_sha256\": \"cd34\"\n  }\n}\n"},
		{"rounds_floats", `{"x":0.53211565315723421}`, "{\n  \"x\": 0.53212\n}\n"},
		{"keeps_ints", `{"n":123456789}`, "{\n  \"n\": 123456789\n}\n"},
		{"nested", `{"l":[1.0000049,{"y":2.22222222}]}`, "{\n  \"l\": [\n    1,\n    {\n      \"y\": 2.2222\n    }\n  ]\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize([]byte(tc.in))
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
	_, err := Normalize([]byte(`[1]`))
	require.ErrorContains(t, err, "not a JSON object")
}
