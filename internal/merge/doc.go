// Package merge builds a run group's result from its clients' results:
// histograms merged exactly per operation type and per interval (never a
// percentile averaged), counts and errors summed, the achieved rate taken
// against the group's target, each client's health listed, and the clients
// that stored no result named. It is pure: result documents in, a result
// document out.
package merge
