// Package result holds the result document of one measured run: the shape
// stored in the results collection (see docs/results.md), as plain data.
//
// It imports nothing that talks to MongoDB. Values a run could not measure
// are nil pointers or absent map keys, never zero.
package result
