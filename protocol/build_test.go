package protocol_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// TestBuild: the profile, data set and layers compose in protocol.Build's order;
// a layer's data block of a track that does not run, a file that is not
// there and an invalid protocol are refused, each wrapping protocol.ErrConfig.
func TestBuild(t *testing.T) {
	csvBlock := `"csv": {"path": "` + testkit.TinyCSV + `", "target": "OT", "t": 24, "h": 6, "split": "fractions"}`
	layer := func(name, json string) protocol.Layer { return protocol.Layer{Name: name, JSON: []byte(json)} }
	var notes []string
	for _, tc := range []struct {
		name  string
		c     protocol.Choice
		want  string // error substring; "" builds
		check func(t *testing.T, p protocol.Protocol)
	}{
		// The profiles' own blocks (every profile sets sequence, on every
		// track) never trip the check.
		{"full_panel", protocol.Choice{Profile: "full", Track: "panel"}, "", nil},
		{"ci_sequence", protocol.Choice{Profile: "ci", Track: "sequence"}, "", nil},
		{"seed_panel", protocol.Choice{Profile: "seed", Track: "panel"}, "", nil},
		{"ci_csv", protocol.Choice{Profile: "ci", Layers: []protocol.Layer{layer("c.json", `{"track": "csv", `+csvBlock+`, "arch": {"patch": 4}}`)}}, "", func(t *testing.T, p protocol.Protocol) {
			require.Equal(t, "csv", p.Track)
			require.Equal(t, "ci", p.Profile)
			require.Equal(t, 2, p.Baseline[0].Epochs, "the csv profile's epochs: the config's track chose the profile's track")
		}},
		// Keys of a track that does not run: a csv block on the panel
		// track once put a csv.path nobody read into the report.
		{"csv_on_panel", protocol.Choice{Profile: "ci", Layers: []protocol.Layer{layer("c.json", `{`+csvBlock+`}`)}}, `c.json: "csv": the data of the csv track, but this protocol runs the panel track`, nil},
		{"sequence_on_csv", protocol.Choice{Profile: "ci", Track: "csv", Layers: []protocol.Layer{layer("c.json", `{`+csvBlock+`, "arch": {"patch": 4}, "sequence": {"t": 64}}`)}}, `c.json: "sequence": the data of the sequence track, but this protocol runs the csv track`, nil},
		{"panel_on_sequence", protocol.Choice{Profile: "ci", Track: "sequence", Layers: []protocol.Layer{layer("c.json", `{"panel": {"t": 16}}`)}}, `c.json: "panel": the data of the panel track, but this protocol runs the sequence track`, nil},
		// The track asked for wins over a config's; the config's block of
		// its own track is then refused.
		{"track_over_config", protocol.Choice{Profile: "ci", Track: "panel", Layers: []protocol.Layer{layer("c.json", `{"track": "csv", `+csvBlock+`}`)}}, `c.json: "csv": the data of the csv track, but this protocol runs the panel track`, nil},
		// A config borrowed for its grids names its own track; asked for
		// another, its block of that track is left out with a note, and
		// without a Warn refused.
		{"borrowed_config", protocol.Choice{Profile: "ci", Track: "csv", TrackField: "--track", Warn: func(msg string) { notes = append(notes, msg) }, Layers: []protocol.Layer{layer("tiny.json", `{"track": "sequence", "sequence": {"t": 64}}`), {Name: "flags", Set: func(p *protocol.Protocol) error {
			raw := `{"path": "` + testkit.TinyCSV + `", "target": "OT", "t": 24, "h": 6}`
			p.CSV = &track.CSVConfig{}
			p.Arch.Patch = 4
			return json.Unmarshal([]byte(raw), p.CSV)
		}}}}, "", func(t *testing.T, p protocol.Protocol) {
			require.Equal(t, protocol.CIProfileFor("csv").Sequence, p.Sequence, "the profile's sequence block, not the config's")
			require.Equal(t, []string{`tiny.json: its "sequence" block is the data of the sequence track it names, but --track asks for the csv track: the block is left out, and the report records the profile's`}, notes)
		}},
		{"borrowed_config_no_warn", protocol.Choice{Profile: "ci", Track: "panel", Layers: []protocol.Layer{layer("tiny.json", `{"track": "sequence", "sequence": {"t": 64}}`)}}, `tiny.json: "sequence": the data of the sequence track, but this protocol runs the panel track`, nil},
		{"later_layer_names_it", protocol.Choice{Profile: "ci", Layers: []protocol.Layer{layer("suite", `{"sequence": {"t": 16, "h": 4, "data_seed": 1, "train_windows": 128, "val_windows": 64, "test_windows": 64, "components": 3, "min_period": 6, "max_period": 48, "ar_coef": 0.8, "noise_std": 0.3}}`), layer("track", `{"track": "sequence"}`)}}, "", func(t *testing.T, p protocol.Protocol) {
			require.Equal(t, 16, p.Sequence.T)
		}},
		{"set_layer", protocol.Choice{Profile: "ci", Track: "panel", Layers: []protocol.Layer{{Name: "flags", Set: func(p *protocol.Protocol) error { p.Arch.Patch = 8; return nil }}}}, "", func(t *testing.T, p protocol.Protocol) {
			require.Equal(t, 8, p.Arch.Patch)
		}},
		{"set_error", protocol.Choice{Profile: "ci", Layers: []protocol.Layer{{Name: "flags", Set: func(*protocol.Protocol) error { return errors.New("--seeds: no") }}}}, "--seeds: no", nil},
		{"channels", protocol.Choice{Profile: "ci", Track: "csv", Channels: "independent", Layers: []protocol.Layer{layer("c.json", `{`+csvBlock+`, "arch": {"patch": 4}}`)}}, "", func(t *testing.T, p protocol.Protocol) {
			require.Equal(t, track.ChannelsIndependent, p.CSV.Channels)
		}},
		{"channels_no_csv", protocol.Choice{Profile: "ci", Track: "panel", Channels: "independent"}, `channels "independent" needs a csv track`, nil},
		{"dataset_unknown", protocol.Choice{Profile: "ci", Dataset: "nope", DatasetField: "--dataset"}, `--dataset "nope": not a known data set`, nil},
		{"dataset_not_csv", protocol.Choice{Profile: "ci", Dataset: "ETTh1", Track: "panel"}, "dataset names a csv track, not track panel", nil},
		{"profile", protocol.Choice{Profile: "huge"}, `profile "huge" is unknown`, nil},
		{"invalid", protocol.Choice{Profile: "ci", Layers: []protocol.Layer{layer("c.json", `{"alpha": 2}`)}}, "alpha = 2: must be in (0,1)", nil},
		{"malformed", protocol.Choice{Profile: "ci", Layers: []protocol.Layer{layer("c.json", `{"alpha": }`)}}, "c.json", nil},
		{"csv_file_missing", protocol.Choice{Profile: "ci", Track: "csv", Layers: []protocol.Layer{layer("c.json", `{"csv": {"path": "nowhere.csv", "target": "OT", "t": 32, "h": 8}}`)}}, "csv.path = nowhere.csv: no such file", nil},
		{"csv_file_directory", protocol.Choice{Profile: "ci", Track: "csv", Layers: []protocol.Layer{layer("c.json", `{"csv": {"path": "..", "target": "OT", "t": 32, "h": 8}}`)}}, "csv.path = ..: a directory", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := protocol.Build(tc.c)
			if tc.want != "" {
				require.ErrorIs(t, err, protocol.ErrConfig)
				require.ErrorContains(t, err, tc.want)
				require.Equal(t, tc.name == "invalid", errors.Is(err, protocol.ErrInvalid), "protocol.ErrInvalid only from Validate")
				return
			}
			require.NoError(t, err)
			require.NoError(t, p.Validate())
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

// TestKnownDataValidates: every known data set, on every profile and
// every channel setting, builds a valid protocol from its own defaults
// (illness's look-back of 36 once met the csv profile's patch 16), and
// a config over the data set tunes it.
func TestKnownDataValidates(t *testing.T) {
	dir := testkit.KnownFiles(t, testkit.TinyCSV)
	for _, k := range track.Known {
		for _, profile := range []string{"full", "ci", "seed"} {
			for _, channels := range []string{"", track.ChannelsIndependent, track.ChannelsMixed} {
				t.Run(k.Name+"/"+profile+"/"+channels, func(t *testing.T) {
					p, err := protocol.Build(protocol.Choice{Profile: profile, Dataset: k.Name, DataDir: dir, Channels: channels})
					if k.TrackKind() == "tsf" {
						if channels != "" {
							require.ErrorContains(t, err, "is a real panel")
							return
						}
						require.NoError(t, err)
						require.Equal(t, "tsf", p.Track)
						require.Equal(t, k.T, p.TSF.T)
						require.Equal(t, k.H, p.TSF.H)
						require.Equal(t, k.Patch, p.Arch.Patch)
						return
					}
					require.NoError(t, err)
					require.Equal(t, k.T, p.CSV.T)
					require.Equal(t, k.Patch, p.Arch.Patch)
					require.Zero(t, k.T%k.Patch, "the data set's patch divides its look-back")
				})
			}
		}
		t.Run(k.Name+"/config", func(t *testing.T) {
			if k.TrackKind() != track.KnownKind {
				t.Skip("a csv data set's config")
			}
			p, err := protocol.Build(protocol.Choice{Profile: "ci", Dataset: k.Name, DataDir: dir, Layers: []protocol.Layer{{Name: "c.json", JSON: []byte(`{"csv": {"h": 12}}`)}}})
			require.NoError(t, err)
			require.Equal(t, 12, p.CSV.H)
			require.Equal(t, k.Target, p.CSV.Target, "the data set's block stays under the config's keys")
			_, err = protocol.Build(protocol.Choice{Profile: "ci", Dataset: k.Name, DataDir: dir, Layers: []protocol.Layer{{Name: "c.json", JSON: []byte(`{"csv": {"path": "other.csv"}}`)}}})
			require.ErrorContains(t, err, "c.json: csv.path: dataset "+k.Name+" names the file already")
		})
	}
}
