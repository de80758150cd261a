// Package ycsb reproduces the generators of YCSB 0.17's core workload, so
// that keys, request distributions and operation mixes are those YCSB
// would produce and results are comparable with YCSB's.
//
// It holds the key hash and key naming (FNVHash64, KeyName), the number
// generators (Uniform, Sequential, Zipfian, ScrambledZipfian, SkewedLatest,
// Hotspot, Constant), the insert counters (Counter, AcknowledgedCounter),
// the operation chooser (Discrete), the workload properties with the
// standard presets a–f (Properties, Preset), and a Workload that wires them
// as YCSB's CoreWorkload does. It is pure: no driver, no I/O.
//
// Generators draw from a *rand.Rand passed by the caller, one per worker.
// Stateful generators (Zipfian and those built on it) belong to one worker;
// Clone gives another worker its own copy without recomputing zeta. State
// YCSB shares between threads (the insert counters, Sequential) is shared
// here too and is safe for concurrent use.
package ycsb
