// Package spec reads scenario files and the typed values of the run
// command: rates, sizes, durations and workload parameters. It fills in
// defaults and validates everything, and its errors say where the problem
// is (file and line, or flag), what was given and what would be valid.
//
// A scenario file is one YAML mapping:
//
//	name: kv-mixed            # default: the workload name
//	workload: kv              # required
//	uri: mongodb://localhost:27017/   # default: the embedded server
//	database: mongobench_data
//	rate: 2000/s              # open loop; leave out for a closed loop
//	threads: 64               # workers (closed loop, default 8) or max in flight (open loop, default 64)
//	duration: 60s             # measured phase; default 30s unless ops is given
//	ops: 1000000              # measured operations
//	warmup: 10s
//	interval: 1s
//	maxLag: 10s               # open loop: later operations are dropped
//	seed: 42
//	label: r6g
//	tags: [baseline, nightly]
//	repetition: 0
//	params:                   # the workload's parameters
//	  records: 100000
//	  docSize: 1KB
//	results:
//	  uri: mongodb://localhost:27017/
//	  file: results.jsonl
//	thresholds:               # judged on the result (package threshold); --threshold adds to them
//	  - p99(read) < 5ms
//	  - errors < 0.1%
//
// Rates read as "2000/s", "2000", "120/m", "1.5k/s" or "2k". Sizes read as
// "512", "512B", "4KB", "4KiB", "4k", "2MB" or "1.5KB"; every unit is
// binary, so 1KB is 1024 bytes. Durations read in Go syntax ("90s",
// "1m30s", "500ms") or as a bare number of seconds.
//
// Unknown keys, duplicate keys, wrong YAML types and out-of-range values
// are all rejected; Parse reports every problem it finds, not just the
// first. A workload declares its parameters as []ParamSpec through a
// Registry; the same checks apply to "params:" entries and to "-p
// name=value" flags (ParseParam, Scenario.SetParam). Scenarios built from
// flags go through Scenario.SetFlag and Scenario.Validate, and their errors
// name the flag instead of a line.
//
// A targets file (ParseTargets) lists the deployments a study runs on:
// each with a unique label, exactly one of a uri or a local server profile
// (a CPU set and a cache size), an optional instance description and an
// optional price ("0.42 USD/h", "694 EUR/month"; price.Parse), and at most
// one baseline. Its errors read like a scenario file's.
package spec
