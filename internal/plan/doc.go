// Package plan answers a capacity plan: which candidate deployment
// carries each growth stage, at the latency users feel, for the least
// money. It is pure: it reads candidates' measured runs (throughput,
// exact latency histograms per operation type, server CPU), a demand
// model (explicit rates, or users calibrated on the baseline) and
// constraints (absolute or relative to the baseline), and returns per
// candidate the figures and verdicts and per stage the recommendation
// with the reasons every other candidate was rejected.
package plan
