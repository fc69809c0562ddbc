// Package plots draws a report's pictures with gonum.org/v1/plot, each as
// PNG and SVG:
//
//   - paired: every seed's test metric of both arms, joined per seed, with
//     the mean difference and its 95% interval;
//   - sweep: each arm's learning-rate sweep against the validation metric
//     (mean ± std over seeds), the chosen cfg marked;
//   - gate: the gate's gain and state over positions in the mechanism
//     signature model, beside the predicted steady gain;
//   - loss: each arm's training-loss curve per seed and their mean.
//
// Every figure reads only the report, so a report from any machine can be
// drawn again; a figure whose data the report lacks (an older report) is
// skipped, not an error.
package plots
