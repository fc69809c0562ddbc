package track

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ideabench/ideabench/internal/num"
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
	// Published are, for a set of the Monash archive, the mean MASE of
	// the archive's own forecasters on the same test windows (Godahewa
	// et al. 2021, its table of mean MASE), for a reading to quote
	// beside the report's.
	Published []Published
	// Pair is, for a .tsf file that circulates as a pair of text files,
	// the pair (Convert makes the file from it); nil otherwise.
	Pair *KnownPair
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
		Licence: "as the Monash archive publishes it (see its Zenodo record)", T: 52, H: 8, Patch: 4,
		Published: monash(1.536, 1.476, 0.792, 1.526, 0.878, 0.916, 0.815, 0.769, 1.005, 0.800, 1.250, 1.770)},
	// The archive's weekly NN5 set: 111 series of 113 weeks, its horizon
	// of 8. Its public copy is a pair of text files (the in-sample 105
	// weeks, the 8 test weeks) that Convert joins into the .tsf file.
	{Name: "nn5-weekly", Kind: "tsf", File: "nn5_weekly_dataset.tsf", SHA256: "8f7cab8aeac4cb6503d18820b55a9a412de0ab0d95622baad9795a59f4a3934e",
		Source:  "the Monash Time Series Forecasting Archive's NN5 weekly set (Godahewa et al. 2021) as its authors' weekly experiments keep it, https://github.com/rakshitha123/WeeklyForecasting (datasets/nn5_weekly_dataset.txt and datasets/nn5_weekly_results.txt); weekly aggregates of the NN5 competition's daily cash withdrawals",
		Licence: "as the NN5 competition and the Monash archive publish it (see the sources)", T: 52, H: 8, Patch: 4,
		Published: monash(0.903, 0.885, 0.872, 0.911, 0.887, 0.854, 0.853, 0.850, 0.863, 0.808, 1.123, 1.141),
		Pair:      weeklyPair("nn5_weekly", "1c7ba03273309d9c3042422db16d6cfc2bfa09d054277c282fc57ebfb461d9d5", "a64ad95d33e9e5a67188d8876a89618fd999ff86bc0f22b173d5fcddeb5d61b8")},
	// Two more of the archive's weekly sets from the same copy, to check
	// results on sets not developed on: traffic weekly (862 series of
	// 104 weeks, horizon 8) and M4 weekly (359 series of 93 to 2610
	// weeks, the competition's horizon of 13).
	{Name: "traffic-weekly", Kind: "tsf", File: "traffic_weekly_dataset.tsf", SHA256: "57f975fbd55bdd65234d693c26dea102db76fd09d131dc5ba34b321262f478e2",
		Source:  "the Monash Time Series Forecasting Archive's traffic weekly set (Godahewa et al. 2021) as its authors' weekly experiments keep it, https://github.com/rakshitha123/WeeklyForecasting (datasets/traffic_weekly_dataset.txt and datasets/traffic_weekly_results.txt); weekly aggregates of the California road occupancy rates of the Caltrans PeMS system",
		Licence: "as the Monash archive publishes it (see the source)", T: 52, H: 8, Patch: 4,
		Published: monash(1.116, 1.121, 1.148, 1.125, 1.191, 1.122, 1.116, 1.150, 1.182, 1.094, 1.233, 1.555),
		Pair:      weeklyPair("traffic_weekly", "f046fb8f11fa79c77862ac82b31b78bc894e0e66645db9f45b655c692288aca7", "d82f0c3ba470ba1c233b073583db2761576bfe2bf78328399e06d8b4d92b6934")},
	{Name: "m4-weekly", Kind: "tsf", File: "m4_weekly_dataset.tsf", SHA256: "84a17faeda730309c65802551f546d3b1d112365e5ca3b524e95c61c18fd98d6",
		Source:  "the Monash Time Series Forecasting Archive's M4 weekly set (Godahewa et al. 2021; the M4 competition's weekly series) as its authors' weekly experiments keep it, https://github.com/rakshitha123/WeeklyForecasting (datasets/m4_weekly_dataset.txt and datasets/m4_weekly_results.txt)",
		Licence: "as the M4 competition publishes it (see the source)", T: 52, H: 13, Patch: 4,
		Published: monash(0.587, 0.546, 0.504, 0.575, 0.550, 0.481, 0.615, 0.545, 0.586, 0.453, 0.587, 0.695),
		Pair:      weeklyPair("m4_weekly", "4dd2c2be9e7f1b7bdfc08a3b69810af4af67686bceaf24a8035d0d216c5e61d7", "9be7fb6958898f67977a77e3bab735b23ad0cb75e963d6340fe34b731af01a24")},
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

// ErrToConvert marks a known data set whose file is not under the data
// directory but the pair of text files it is made from is
// (KnownData.Convert); it wraps ErrNotFound.
var ErrToConvert = fmt.Errorf("%w (its text files are there)", ErrNotFound)

// Find returns the path of k's file under dir: dir/File, else the first
// file named like File's base name below dir (in lexical order). It
// checks the file's SHA-256 and says what to do when the file is missing
// or differs.
func (k KnownData) Find(dir string) (string, error) {
	path, ok := lookUp(dir, k.File)
	if !ok {
		base := filepath.Base(k.File)
		if k.Pair != nil {
			if _, tok := lookUp(dir, k.Pair.Train); tok {
				if _, sok := lookUp(dir, k.Pair.Test); sok {
					return "", fmt.Errorf("%w: %s: no %s under %s, but its two text files are there; make it from them with: ideabench datasets --convert %s --data-dir %s",
						ErrToConvert, k.Name, base, dir, k.Name, num.ShellQuote(dir))
				}
			}
			return "", fmt.Errorf("%w: %s: no %s under %s (looked for %s and any %s below it), nor its two text files %s and %s; download those from %s, put them there and make the file with: ideabench datasets --convert %s --data-dir %s",
				ErrNotFound, k.Name, base, dir, filepath.Join(dir, filepath.FromSlash(k.File)), base, k.Pair.Train, k.Pair.Test, k.Source, k.Name, num.ShellQuote(dir))
		}
		return "", fmt.Errorf("%w: %s: no %s under %s (looked for %s and any %s below it); download it from %s and put it there, or pass its directory with --data-dir",
			ErrNotFound, k.Name, base, dir, path, base, k.Source)
	}
	sum, err := FileSHA256(path)
	if err != nil {
		return "", fmt.Errorf("track: %s: %w", k.Name, err)
	}
	if sum != k.SHA256 {
		return "", fmt.Errorf("track: %s: %s has SHA-256 %s, not the published file's %s: an edited copy or another version; get the file from %s, or run this copy as it is with the data set's settings: ideabench run %s",
			k.Name, path, sum, k.SHA256, k.Source, shellLine(k.FileFlags(path)))
	}
	return path, nil
}

// FileFlags are the command-line flags that run the file at path as it
// is, with k's usual protocol on the track of k's kind: what --dataset
// stands for, less the checksum. The csv kind's are its track, file,
// split, target (the only input: the univariate protocol), look-back,
// horizon and token length; the tsf kind's its track, file, look-back,
// horizon and token length.
func (k KnownData) FileFlags(path string) []string {
	out := []string{"--track", k.TrackKind(), "--data", path}
	if k.TrackKind() == KnownKind {
		out = append(out, "--target", k.Target, "--features", k.Target, "--csv-split", k.Split)
	}
	out = append(out, "--context", strconv.Itoa(k.T), "--horizon", strconv.Itoa(k.H))
	if k.Patch > 0 {
		out = append(out, "--patch", strconv.Itoa(k.Patch))
	}
	return out
}

// shellLine is words as a command line of a POSIX shell, each quoted
// as it needs (num.ShellQuote).
func shellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = num.ShellQuote(w)
	}
	return strings.Join(q, " ")
}

// Published is a forecaster's published score on a known data set.
type Published struct {
	Method string
	MASE   float64
}

// monashWeekly are the columns of the archive's table of mean MASE.
var monashWeekly = []string{"SES", "Theta", "TBATS", "ETS", "DHR-ARIMA", "pooled regression", "CatBoost", "feed-forward net", "DeepAR", "N-BEATS", "WaveNet", "Transformer"}

// monash pairs the archive's columns with a data set's row.
func monash(row ...float64) []Published {
	if len(row) != len(monashWeekly) {
		panic("track: a row of the archive's table has 12 columns")
	}
	out := make([]Published, len(row))
	for i, v := range row {
		out[i] = Published{Method: monashWeekly[i], MASE: v}
	}
	return out
}

// weeklyPair is the pair of text files of a weekly set of the archive
// as github.com/rakshitha123/WeeklyForecasting keeps them:
// relation_dataset.txt and relation_results.txt, with their SHA-256s.
func weeklyPair(relation, trainSHA, testSHA string) *KnownPair {
	return &KnownPair{Train: relation + "_dataset.txt", Test: relation + "_results.txt", TrainSHA: trainSHA, TestSHA: testSHA,
		PairConfig: PairConfig{Relation: relation, Frequency: "weekly"}}
}

// KnownBySHA returns the known data set whose file has the hex SHA-256
// sum.
func KnownBySHA(sum string) (KnownData, bool) {
	for _, k := range Known {
		if k.SHA256 == sum {
			return k, true
		}
	}
	return KnownData{}, false
}

// lookUp returns dir/file when it exists, else the first file named
// like file's base name below dir (in lexical order); ok false when
// there is none.
func lookUp(dir, file string) (path string, ok bool) {
	path = filepath.Join(dir, filepath.FromSlash(file))
	if _, err := os.Stat(path); err == nil {
		return path, true
	}
	base := filepath.Base(file)
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
		return path, false
	}
	slices.Sort(found)
	return found[0], true
}

// KnownPair is, for a known .tsf file that circulates as a pair of text
// files (ReadTSFPair), the pair: their usual paths under a data
// directory, their SHA-256s as published, and what the pair does not
// say.
type KnownPair struct {
	Train, Test       string
	TrainSHA, TestSHA string
	PairConfig
}

// Convert makes k's .tsf file from its pair of text files under dir
// (found as Find finds a file), both checked against their published
// SHA-256s, and writes it beside the in-sample file; the file written
// must have k's SHA-256 (WriteTSF's output is a function of the values).
// It returns the file's path. An existing file is not overwritten: one
// with k's SHA-256 is returned as it is, another is an error.
func (k KnownData) Convert(ctx context.Context, dir string) (string, error) {
	if k.Pair == nil {
		return "", fmt.Errorf("track: %s is published as %s itself: nothing to convert; download it from %s", k.Name, filepath.Base(k.File), k.Source)
	}
	var paths [2]string
	for i, f := range []struct{ file, sha string }{{k.Pair.Train, k.Pair.TrainSHA}, {k.Pair.Test, k.Pair.TestSHA}} {
		p, ok := lookUp(dir, f.file)
		if !ok {
			return "", fmt.Errorf("%w: %s: no %s under %s; download it from %s and put it there", ErrNotFound, k.Name, filepath.Base(f.file), dir, k.Source)
		}
		sum, err := FileSHA256(p)
		if err != nil {
			return "", fmt.Errorf("track: %s: %w", k.Name, err)
		}
		if sum != f.sha {
			return "", fmt.Errorf("track: %s: %s has SHA-256 %s, not the published file's %s: an edited copy or another version; get it from %s", k.Name, p, sum, f.sha, k.Source)
		}
		paths[i] = p
	}
	out := filepath.Join(filepath.Dir(paths[0]), filepath.Base(k.File))
	if _, err := os.Stat(out); err == nil {
		if sum, err := FileSHA256(out); err == nil && sum == k.SHA256 {
			return out, nil // made before, and verified
		}
		return "", fmt.Errorf("track: %s: %s exists already and is not the file the pair makes; remove it to make it again", k.Name, out)
	}
	train, err := os.Open(paths[0])
	if err != nil {
		return "", fmt.Errorf("track: %w", err)
	}
	defer train.Close()
	test, err := os.Open(paths[1])
	if err != nil {
		return "", fmt.Errorf("track: %w", err)
	}
	defer test.Close()
	f, err := ReadTSFPair(ctx, train, test, paths[0], paths[1], k.Pair.PairConfig)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := WriteTSF(&b, f, fmt.Sprintf("%s: made by ideabench datasets --convert from %s and %s", k.Name, filepath.Base(k.Pair.Train), filepath.Base(k.Pair.Test))); err != nil {
		return "", err
	}
	sum := sha256.Sum256(b.Bytes())
	if got := hex.EncodeToString(sum[:]); got != k.SHA256 {
		return "", fmt.Errorf("track: %s: the file made has SHA-256 %s, not the expected %s: a change in the writer; report it", k.Name, got, k.SHA256)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".convert-*")
	if err != nil {
		return "", fmt.Errorf("track: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", fmt.Errorf("track: %w", err)
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", fmt.Errorf("track: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("track: %w", err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("track: %w", err)
	}
	return out, nil
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
