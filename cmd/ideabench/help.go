package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/suite"
	"github.com/ideabench/ideabench/track"
)

// errHelp ends a command that printed its help on request (exit status 0).
var errHelp = errors.New("help printed")

// synopses is each command's usage line and what it does, in usage's
// order.
var synopses = []struct{ name, args, does string }{
	{"run", "[protocol flags] [--idea NAME[:k=v,...]] [--ideas 'A;B;...'] [--out FILE] [--results DIR] [--workers N] [--shard I/N] [--plots DIR] [--max-hours H] [--until-decided MAX] [--dry-run] [--quiet]", "run the seeded protocol and write the JSON report (finished trials are kept in --results and reused)"},
	{"suite", "[--suite " + strings.Join(suite.Names(), "|") + "|FILE.json] [--data-dir DIR] [--confirm] [--ideas 'A;B;...'] [--out FILE] [--workers N] [--shard I/N] [--plots DIR] [--max-hours H] [--dry-run] [--quiet]", "run the comparison on every track of a suite and give one verdict over them (each track's report beside it)"},
	{"merge", "[--out FILE] DIR...", "merge the results directories of a sharded run into one report"},
	{"plot", "REPORT.json [--out DIR] [--unverified]", "verify a report (or a suite report) and draw its figures"},
	{"train", "[protocol flags] [--arm idea|baseline] [--cfg I] [--seed S] [--out FILE.safetensors]", "train one trial and save its checkpoint"},
	{"data", "[protocol flags] [--split train|val|test] [--out FILE.csv]", "export a split's windows as CSV, stamped with the protocol's hash"},
	{"eval", "--checkpoint FILE --data FILE.csv [--any-data]", "score a checkpoint on exported windows"},
	{"compare", "[--baseline NAME] [--higher-is-better] [--alpha A] [--min-effect-pct P] [--out FILE] METRICS.csv|METRICS.json|NAME=REPORT.json[#ARM]...", "compare arms trained elsewhere from their per-seed metrics (rows arm,cfg,seed,val,test; cfg and val optional), or arms of verified run reports on one track and seeds (a run's baseline, or #idea or an idea arm: e.g. two settings of the model), with the protocol's statistics, into a report verify accepts"},
	{"verify", "[--results DIR] REPORT.json", "rebuild a report (or a suite report and its tracks') from its inputs and compare it leaf by leaf (with --results, from the trial records)"},
	{"control", "[protocol flags | --suite " + strings.Join(suite.Names(), "|") + "|FILE.json] [--idea aa|NAME:k=v,...] [--blocks N] [--seed-base B] [--out FILE] [--results DIR] [--workers N] [--max-hours H] [--dry-run] [--quiet]", "rerun the comparison (or a suite's) on disjoint seed blocks: the false-positive rate (aa) or the power of an idea"},
	{"datasets", "[--data-dir DIR] [--convert NAME]", "list the known data sets (--dataset NAME): source, licence, protocol, and whether each is found and verified under DIR; or make a set's .tsf file from its two text files"},
	{"version", "", "print the version"},
	{"help", "[COMMAND]", "print this, or a command's flags"},
}

// usage is the top-level help.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: ideabench COMMAND [flags]\n\ncommands:\n")
	for _, s := range synopses {
		fmt.Fprintf(&b, "  %-8s %s\n", s.name, s.does)
	}
	var kinds []string
	for _, k := range track.Kinds() {
		kinds = append(kinds, k.Name())
	}
	b.WriteString(`
protocol flags (run, train, data, control): --profile full|seed|ci, --config FILE,
  --track ` + strings.Join(kinds, "|") + `,
  and for csv --data FILE --target COL [--features A,B,...]
  [--csv-split ett-hour|ett-minute|fractions] [--context 96] [--horizon 96]
  [--channels target|independent|mixed], or --dataset NAME [--data-dir DIR] for a
  known data set (ideabench datasets)

"ideabench help COMMAND" or "ideabench COMMAND --help" lists a command's flags.
Exit status: 0 success, 1 failure, 2 bad command line or config, 130
interrupted (finished trials are kept; rerun the same command).`)
	return b.String()
}

// synopsis is a command's usage line.
func synopsis(name string) string {
	for _, s := range synopses {
		if s.name == name {
			return strings.TrimSpace("ideabench " + name + " " + s.args)
		}
	}
	return "ideabench " + name
}

// newFlags returns the flag set of a command. Its own usage output is
// off: parseFlags prints the help on -h, -help or --help (to stdout, exit
// 0) and the synopsis after a bad flag (to stderr, exit 2).
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args into fs: errHelp after printing the command's
// help to stdout when asked for, an errUsage naming the flag otherwise.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printHelp(stdout, fs)
		return errHelp
	case err != nil:
		return fmt.Errorf("%w: %s: %v\nusage: %s (--help lists the flags)", errUsage, fs.Name(), err, synopsis(fs.Name()))
	}
	return nil
}

// printHelp writes a command's synopsis, what it does and its flags.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n", synopsis(fs.Name()))
	for _, s := range synopses {
		if s.name == fs.Name() {
			fmt.Fprintf(w, "\n%s.\n", strings.ToUpper(s.does[:1])+s.does[1:])
		}
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	if fs.Lookup("idea") != nil || fs.Lookup("ideas") != nil {
		writeIdeas(w)
	}
}

// writeIdeas lists the registered ideas (idea.Names): each one's site,
// what it does, its parameters with their defaults, and its identity
// setting where it has one.
func writeIdeas(w io.Writer) {
	fmt.Fprintln(w, "\nideas (--idea NAME:k=v,k=v; a parameter left out takes its default; with --tune N each\nidea's parameters are searched over their space, which --idea NAME:k=lo..hi narrows or\nwidens and NAME:k=v pins):")
	for _, name := range idea.Names() {
		spec, _ := idea.Lookup(name)
		site := "?"
		if in, err := idea.New(idea.Config{Name: name}); err == nil {
			site = string(in.Site())
		}
		fmt.Fprintf(w, "  %s (site %s): %s\n", name, site, spec.Doc)
		for _, p := range spec.Params {
			fmt.Fprintf(w, "      %s = %g: %s\n", p.Name, p.Default, p.Doc)
			switch {
			case p.Space != nil:
				fmt.Fprintf(w, "        searched over %s: %s\n", p.Space, p.Source)
			case p.Source != "":
				fmt.Fprintf(w, "        not searched: %s\n", p.Source)
			}
		}
		if len(idea.SpaceOf(name)) == 0 {
			fmt.Fprintln(w, "      tuned over the learning rate alone (no parameter its papers search)")
		}
		if len(spec.Off) > 0 {
			var off []string
			for _, p := range spec.Params {
				if v, ok := spec.Off[p.Name]; ok {
					off = append(off, fmt.Sprintf("%s=%g", p.Name, v))
				}
			}
			fmt.Fprintf(w, "      identity (the baseline bit for bit) at %s\n", strings.Join(off, ","))
		}
	}
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}
