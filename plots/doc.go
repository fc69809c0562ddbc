// Package plots draws a report's figures with gonum.org/v1/plot, each as
// NAME.png (DPI dots per inch) and NAME.svg, 16 cm x 10 cm unless
// Options say otherwise:
//
//   - paired: left, every seed's test metric of both arms joined by a
//     line, red where the idea is better; right, the per-seed differences
//     idea - baseline with their mean (comparison.delta_mean) and its
//     interval at the report's level, 1 - alpha (see Interval); the title
//     gives the p-value and the verdict with its marks.
//   - sweep: one panel per arm, learning rate (log axis) against the
//     validation metric, mean ± std over seeds, the chosen cfg ringed and
//     every idea cfg labelled with its ρ and β.
//   - gate: the gain (top) and state (bottom) by position of every block
//     of the mechanism-signature model, with each block's predicted
//     steady gain.
//   - loss: each arm's chosen cfg, the training loss by epoch of every
//     seed (thin) and their mean (thick).
//
// Write works in three steps:
//
//  1. Build every figure from the report alone, so a report from any
//     machine can be drawn again. A figure whose data the report lacks
//     altogether (an older report: no per-position signature, no loss
//     curves) is skipped; data that is there but odd (empty, of mismatched
//     lengths, NaN) is an error naming the field, before anything is
//     written.
//  2. Lay each figure out: a title, the panels aligned on their data areas
//     (plot.Align), and the legend in a column right of them, where it
//     cannot cover data.
//  3. Draw it on a PNG and an SVG canvas and write each file atomically.
//
// The same report always gives the same bytes.
//
// The package also reads a report out to a person: Reading (ReadingOf, a
// suite's SuiteReading, a comparison's ComparedReading) is its labelled
// lines and small tables, from provenance to verdict to the tables,
// which the command prints (Reading.WriteText) and the pages show
// (WriteHTML, WriteSuiteHTML, WriteComparedHTML), so that a label, an interval's level
// (from the report's alpha) or a verdict's marks are written once.
// Whether a report verified is the caller's to say (Options.Unverified).
package plots
