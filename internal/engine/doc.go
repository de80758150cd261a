// Package engine is the engine that drives operations and measures them. It
// knows nothing of MongoDB: a Task performs one operation and says which
// type it was and whether it failed.
//
// Two modes:
//
//   - Open loop: a Pacer gives every operation an intended start time on a
//     fixed schedule. Workers claim the next slot when they are free, wait
//     until its time, and send it. Latency runs from the intended start (what
//     a user waiting in line sees), service time from the actual send. A slow
//     server never slows the schedule: slots claimed after their time are
//     counted late, and slots later than the drop bound are dropped and
//     counted, never silently skipped.
//   - Closed loop: N workers each send the next operation when the last one
//     returns. Latency equals service time.
//
// Every worker records into its own HDR histograms per operation type; the
// engine rotates them every interval (bucketing operations by completion
// time), merges them exactly into the interval and phase totals, and keeps
// errors, by class, out of the latency histograms. Operations that start
// before the warm-up ends are not recorded.
package engine
