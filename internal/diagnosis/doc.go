// Package diagnosis says what limited a run: from a stored result
// document, and the ceilings a user states (a disk's throughput and
// IOPS, a network link), it finds the resource that saturated, ranks the
// other candidates with their evidence as numbers, and says what to try
// next. When nothing saturated, the limit is latency × concurrency, and
// the diagnosis says so with Little's law.
//
// The rules are data: a table of named rules (Rules), each a small
// function over the figures it needs, with the share of its ceiling from
// which it counts as saturated. A rule whose inputs the document lacks
// (SecantusDB reports no wiredTiger section, a disk has no known
// ceiling) says it could not judge and which input is missing; it never
// guesses. The package is pure: it reads documents only.
package diagnosis
