package plots_test

import (
	"fmt"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/ideabench/ideabench/report"

	"github.com/ideabench/ideabench/plots"
)

// Draw a report's figures at the default size, 16 cm x 10 cm.
func ExampleWrite() {
	r, err := report.Read("../golden/ci_1.snap.json")
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	paths, err := plots.Write(r, dir, plots.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range paths {
		if filepath.Ext(p) != ".png" {
			fmt.Println(filepath.Base(p))
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			log.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %dx%d\n", filepath.Base(p), cfg.Width, cfg.Height)
	}
	// Output:
	// paired.png 605x378
	// paired.svg
	// sweep.png 605x378
	// sweep.svg
	// gate.png 605x378
	// gate.svg
	// loss.png 605x378
	// loss.svg
	// budget.png 605x378
	// budget.svg
	// sensitivity.png 605x378
	// sensitivity.svg
}
