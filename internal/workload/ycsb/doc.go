// Package ycsb holds YCSB's core workloads A–F as mongobench workloads
// ("ycsb-a" … "ycsb-f"), their load phases as measured runs of their own
// ("ycsb-a-load" … "ycsb-f-load"), and the lean wire path their
// operations and loads take (internal/wire; the driver when the
// connection string needs what the wire client lacks). Records are stored
// as YCSB's MongoDB binding stores them.
//
// The generators (keys, distributions, the operation mix, the insert
// counters) are the pure package internal/ycsb, imported here as core;
// this package sends what they choose to the server.
package ycsb
