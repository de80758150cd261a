// Package hist is mongobench's one notion of a latency distribution: an HDR
// histogram of microseconds from 1 µs to 1 hour at 3 significant digits,
// with exact merging, a portable encoding (HdrHistogram V2, compressed and
// base64 encoded, readable by every HdrHistogram implementation) and the
// summary stored in result documents.
//
// Percentiles are always read from a histogram, never averaged: to combine
// runs or workers, merge their histograms and read the merged one.
package hist
