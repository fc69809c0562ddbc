package track

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// KnownKind is the kind of a known data set that names none
// (KnownData.Kind): a CSV file read by the csv kind, whose block
// KnownData.Config makes.
const KnownKind = "csv"

// KnownData is a public data set of the long-horizon forecasting
// literature as its users have it: where to get it, the file's SHA-256,
// its licence and the protocol its papers use (the split, the target,
// the usual look-back and horizon).
type KnownData struct {
	// Name is what --dataset takes, e.g. "ETTh1".
	Name string
	// Kind is the track kind that reads the file: "" the csv kind
	// (KnownKind), "tsf" a real panel of the Monash archive (TSFConfig).
	Kind string
	// File is the file's usual path under a data directory, e.g.
	// "ETT-small/ETTh1.csv"; Find also takes its base name anywhere
	// below the directory.
	File string
	// SHA256 is the hex SHA-256 of the file's bytes as published.
	SHA256 string
	// Source says where to download it.
	Source string
	// Licence is the file's licence or terms.
	Licence string
	// Split is the CSVConfig.Split its papers cut it by.
	Split string
	// Target is the column of its univariate protocol ("S").
	Target string
	// T and H are the look-back and horizon of its usual protocol (its
	// papers also report other horizons).
	T, H int
	// Patch is the token length (input positions per token) a model of
	// patch tokens takes on it, a divisor of T: PatchTST's 16 on the
	// look-back of 336, and on the short look-back of illness 12 (three
	// tokens of 36 weeks).
	Patch int
}

// TrackKind is the kind of the track that reads k's file.
func (k KnownData) TrackKind() string {
	if k.Kind == "" {
		return KnownKind
	}
	return k.Kind
}

// TSFConfig is the tsf track of k's usual protocol on the file at path:
// its look-back and the archive's horizon.
func (k KnownData) TSFConfig(path string) TSFConfig {
	return TSFConfig{Path: path, T: k.T, H: k.H}
}

// Known lists the data sets whose files ideabench can find by name and
// verify. The hashes are of the files as published, checked here against
// the copies of the ETDataset repository, of the Autoformer collection
// and of the sunspot series' repository. The sunspot series is outside
// the long-horizon literature; its protocol here (12 years in, 2 ahead)
// spans one 11-year solar cycle in the look-back, in tokens of 16 months.
var Known = []KnownData{
	{Name: "ETTh1", File: "ETT-small/ETTh1.csv", SHA256: "f18de3ad269cef59bb07b5438d79bb3042d3be49bdeecf01c1cd6d29695ee066",
		Source: "https://github.com/zhouhaoyi/ETDataset (ETT-small/ETTh1.csv)", Licence: "CC BY-ND 4.0",
		Split: "ett-hour", Target: "OT", T: 336, H: 96, Patch: 16},
	{Name: "ETTh2", File: "ETT-small/ETTh2.csv", SHA256: "a3dc2c597b9218c7ce1cd55eb77b283fd459a1d09d753063f944967dd6b9218b",
		Source: "https://github.com/zhouhaoyi/ETDataset (ETT-small/ETTh2.csv)", Licence: "CC BY-ND 4.0",
		Split: "ett-hour", Target: "OT", T: 336, H: 96, Patch: 16},
	{Name: "ETTm1", File: "ETT-small/ETTm1.csv", SHA256: "6ce1759b1a18e3328421d5d75fadcb316c449fcd7cec32820c8dafda71986c9e",
		Source: "https://github.com/zhouhaoyi/ETDataset (ETT-small/ETTm1.csv)", Licence: "CC BY-ND 4.0",
		Split: "ett-minute", Target: "OT", T: 336, H: 96, Patch: 16},
	{Name: "weather", File: "weather/weather.csv", SHA256: "34ee981d07313e51da2a50bb600072c8ae4a69cb4b0651f4cb93a069d7a2ba63",
		Source:  "the Autoformer collection (https://github.com/thuml/Autoformer, data link in its README); recorded by the Max Planck Institute for Biogeochemistry, https://www.bgc-jena.mpg.de/wetter/",
		Licence: "the station's terms of use (see the source)", Split: "fractions", Target: "OT", T: 336, H: 96, Patch: 16},
	{Name: "illness", File: "illness/national_illness.csv", SHA256: "8594cecb98c6f2f9dc014eca11c4d5d1e38ad5ce6ed0592d4abe65b146fce395",
		Source:  "the Autoformer collection (https://github.com/thuml/Autoformer, data link in its README); US CDC FluView ILINet, https://gis.cdc.gov/grasp/fluview/fluportaldashboard.html",
		Licence: "US CDC data, public", Split: "fractions", Target: "OT", T: 36, H: 24, Patch: 12},
	{Name: "sunspots", File: "monthly-sunspots.csv", SHA256: "c4ec8cc57d9f6fb6ecdb3e1f37f25b6f4badd5124c55931052b0cd2fc3bc71f3",
		Source:  "https://github.com/jbrownlee/Datasets (monthly-sunspots.csv): the Zurich monthly sunspot numbers 1749-1983 of the Time Series Data Library (Hyndman), citing Andrews and Herzberg (1985), Data",
		Licence: "as distributed by the Time Series Data Library (see the source)", Split: "fractions", Target: "Sunspots", T: 144, H: 24, Patch: 16},
	// The Monash archive's weekly electricity set: 321 series of 156
	// weeks, its horizon of 8; a year of weeks in, tokens of 4 weeks.
	{Name: "electricity-weekly", Kind: "tsf", File: "electricity_weekly_dataset.tsf", SHA256: "3b0bb0312c29a9cffb2f1650154adc78d9631ce9c329fcf0f415a0feb7522150",
		Source:  "the Monash Time Series Forecasting Archive (Godahewa et al. 2021, https://forecastingdata.org, its Zenodo record), the copy of https://github.com/rstudio/academyDatasets (data-raw/electricity_weekly/electricity_weekly_dataset.tsf); from the UCI ElectricityLoadDiagrams20112014 data",
		Licence: "as the Monash archive publishes it (see its Zenodo record)", T: 52, H: 8, Patch: 4},
}

// LookupKnown returns the known data set called name (case-insensitive).
func LookupKnown(name string) (KnownData, bool) {
	for _, k := range Known {
		if strings.EqualFold(k.Name, name) {
			return k, true
		}
	}
	return KnownData{}, false
}

// KnownNames lists the names of Known.
func KnownNames() []string {
	out := make([]string, len(Known))
	for i, k := range Known {
		out[i] = k.Name
	}
	return out
}

// ErrNotFound marks a known data set whose file is not under the data
// directory.
var ErrNotFound = errors.New("track: data set not found")

// Find returns the path of k's file under dir: dir/File, else the first
// file named like File's base name below dir (in lexical order). It
// checks the file's SHA-256 and says what to do when the file is missing
// or differs.
func (k KnownData) Find(dir string) (string, error) {
	base := filepath.Base(k.File)
	path := filepath.Join(dir, filepath.FromSlash(k.File))
	if _, err := os.Stat(path); err != nil {
		var found []string
		walkErr := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable corners are not where the file is
			}
			if !d.IsDir() && d.Name() == base {
				found = append(found, p)
			}
			return nil
		})
		if walkErr != nil || len(found) == 0 {
			return "", fmt.Errorf("%w: %s: no %s under %s (looked for %s and any %s below it); download it from %s and put it there, or pass its directory with --data-dir",
				ErrNotFound, k.Name, base, dir, path, base, k.Source)
		}
		slices.Sort(found)
		path = found[0]
	}
	sum, err := FileSHA256(path)
	if err != nil {
		return "", fmt.Errorf("track: %s: %w", k.Name, err)
	}
	if sum != k.SHA256 {
		return "", fmt.Errorf("track: %s: %s has SHA-256 %s, not the published file's %s: an edited copy or another version; get the file from %s, or pass this one with --data to use it as it is",
			k.Name, path, sum, k.SHA256, k.Source)
	}
	return path, nil
}

// FileSHA256 is the hex SHA-256 of the file at path.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Config is the csv track of k's usual protocol on the file at path
// with the given CSVConfig.Channels: the univariate target ("" or
// "target"), or every column ("independent", "mixed": the multivariate
// setting).
func (k KnownData) Config(path, channels string) CSVConfig {
	c := CSVConfig{Path: path, Target: k.Target, T: k.T, H: k.H, Split: k.Split, Channels: channels}
	if c.Several() {
		c.Target = ""
	} else {
		c.Features = []string{k.Target}
	}
	return c
}
