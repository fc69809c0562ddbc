package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ideabench/ideabench/internal/num"
	"github.com/ideabench/ideabench/track"
)

// cmdDatasets lists the known data sets and whether each is under
// --data-dir, verified.
func cmdDatasets(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("datasets")
	dir := fs.String("data-dir", defaultDataDir(), "where to look for the files (default $IDEABENCH_DATA, else the current directory)")
	convert := fs.String("convert", "", "make the .tsf file of the known data set `NAME` from its two text files under --data-dir (a set published as a pair: each checked against its SHA-256, the file written beside them)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: datasets takes no arguments (got %q)\nusage: %s", errUsage, fs.Args(), synopsis("datasets"))
	}
	if *convert != "" {
		k, ok := track.LookupKnown(*convert)
		if !ok {
			return fmt.Errorf("%w: --convert %q: no known data set of that name; known: %s", errUsage, *convert, strings.Join(track.KnownNames(), ", "))
		}
		path, err := k.Convert(ctx, *dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: wrote %s (SHA-256 %s, verified)\nrun it: ideabench run --dataset %s --data-dir %s\n", k.Name, path, k.SHA256, k.Name, shellQuote(*dir))
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tfile\tsplit\ttarget\tt\th\tpatch\tlicence\tunder "+*dir)
	var found []string
	for _, k := range track.Known {
		status := "found, SHA-256 verified"
		if p, err := k.Find(*dir); err != nil {
			status = "missing"
			switch {
			case !errors.Is(err, track.ErrNotFound):
				status = "differs from the published file"
			case errors.Is(err, track.ErrToConvert):
				status = "missing; its two text files are there: ideabench datasets --convert " + k.Name + " --data-dir " + shellQuote(*dir)
			}
		} else {
			status += " (" + p + ")"
			found = append(found, k.Name)
		}
		split, target := k.Split, k.Target
		if k.TrackKind() == "tsf" {
			split, target = "archive (last h)", "every series"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", k.Name, k.File, split, target, k.T, k.H, k.Patch, k.Licence, status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\nsources:")
	for _, k := range track.Known {
		fmt.Fprintf(stdout, "  %s: %s\n", k.Name, k.Source)
	}
	if len(found) == 0 {
		fmt.Fprintf(stdout, "\nnone is under %s: download one from its source into it (or pass the folder that holds them with --data-dir), then ask again for the command that runs it:\n  ideabench datasets --data-dir %s\n", *dir, shellQuote(*dir))
		return nil
	}
	// Commands as they paste into a shell: every one runs as printed.
	fmt.Fprintln(stdout, "\nrun one (add --channels independent or --channels mixed to forecast every column of a csv file):")
	for _, name := range found {
		fmt.Fprintf(stdout, "  ideabench run --dataset %s --data-dir %s\n", name, shellQuote(*dir))
	}
	return nil
}

// shellQuote is s as one word of a POSIX shell (num.ShellQuote, which
// the track package's messages quote paths by too).
var shellQuote = num.ShellQuote
