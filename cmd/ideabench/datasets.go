package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ideabench/ideabench/track"
)

// cmdDatasets lists the known data sets and whether each is under
// --data-dir, verified.
func cmdDatasets(args []string, stdout io.Writer) error {
	fs := newFlags("datasets")
	dir := fs.String("data-dir", defaultDataDir(), "where to look for the files (default $IDEABENCH_DATA, else the current directory)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tfile\tsplit\ttarget\tt\th\tlicence\tunder "+*dir)
	for _, k := range track.Known {
		status := "found, SHA-256 verified"
		if p, err := k.Find(*dir); err != nil {
			status = "missing"
			if !errors.Is(err, track.ErrNotFound) {
				status = "differs from the published file"
			}
		} else {
			status += " (" + p + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", k.Name, k.File, k.Split, k.Target, k.T, k.H, k.Licence, status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\nsources:")
	for _, k := range track.Known {
		fmt.Fprintf(stdout, "  %s: %s\n", k.Name, k.Source)
	}
	fmt.Fprintln(stdout, "\nrun one: ideabench run --dataset NAME --data-dir DIR [--channels independent|mixed]")
	return nil
}
