// Package significance answers "is this difference real or noise?" for
// figures measured once per run: the Mann–Whitney U test (exact for small
// samples without ties, else the normal approximation with tie and
// continuity correction, as R's wilcox.test and SciPy's mannwhitneyu do,
// and saying which), Student's t-test, the median and its distribution-free
// confidence interval, a seeded bootstrap interval of the ratio of medians,
// and the verdict of a comparison: "~" (likely noise), better, worse, or a
// refusal naming how many runs a verdict needs.
//
// The unit of sampling is the run, never the request: each value is one
// run's figure (its throughput, or a percentile read from its own
// histogram). The package is pure: no I/O, no clock, no global random
// source; the bootstrap takes its seed from the caller.
package significance
