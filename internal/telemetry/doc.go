// Package telemetry observes the server under test and its host during a
// benchmark, and turns what it observes into per-interval figures and the
// result document's metric series.
//
// It has two halves that are kept apart:
//
//   - samplers, which talk to MongoDB (ServerStatus, Sampler,
//     DiagnosticData: getDiagnosticData's serverStatus and host in one
//     sample, at the server's own instants) or read the
//     host's /proc through github.com/prometheus/procfs (Host), and the
//     description of a local server's machine (DescribeMachine: what it
//     reads from /proc and /sys, then what it decides from that);
//   - pure maths over recorded samples (Lookup, ServerFigures,
//     HostFigures, Intervals, Window, Series), which does no I/O and is
//     tested on recorded serverStatus documents.
//
// A figure the server or host does not report is absent from the output,
// never zero: SecantusDB, the embedded default server, reports only
// opcounters, connections and network bytes, and a server on another host
// has no host figures at all. A counter that goes backwards between two
// samples (a restart) yields no figure for that interval rather than a
// negative one.
//
// # Interval keys
//
// ServerFigures returns these keys (rates are per second over the interval,
// gauges are read at the interval's end):
//
//	<op>PerSec                 opcounters.<op> rate, e.g. insertPerSec, queryPerSec
//	connections                connections.current
//	netInBytesPerSec           network.bytesIn rate
//	netOutBytesPerSec          network.bytesOut rate
//	netPhysicalInBytesPerSec   network.physicalBytesIn rate
//	netPhysicalOutBytesPerSec  network.physicalBytesOut rate
//	cacheBytes                 wiredTiger.cache.bytes currently in the cache
//	cacheDirtyBytes            wiredTiger.cache.tracked dirty bytes in the cache
//	checkpointRunning          1 while a WiredTiger checkpoint runs, else 0
//	checkpoints                checkpoints completed in the interval
//	writeConflictsPerSec       metrics.operation.writeConflicts rate
//	readLatencyMs              server-side mean read latency (opLatencies.reads)
//	writeLatencyMs             server-side mean write latency (opLatencies.writes)
//	commandLatencyMs           server-side mean command latency (opLatencies.commands)
//	cacheMaxBytes              wiredTiger.cache.maximum bytes configured
//	appEvictionPagesPerSec     wiredTiger.cache.pages evicted by application threads rate
//	ticketsOut                 execution tickets in use, read.out + write.out (queues.execution, 8.0; wiredTiger.concurrentTransactions, 7.0)
//	queuedOps                  globalLock.currentQueue.total
//	connectionsCreatedPerSec   connections.totalCreated rate
//	ticketsTotal               execution tickets there are, reads and writes (totalTickets, or out + available)
//	checkpointMs               the most recent checkpoint's duration, in intervals in which one completed
//	replLagSecs                the most any secondary lags the primary at the interval's end, from replSetGetStatus
//
// HostFigures returns these keys (percentages are of all cores):
//
//	cpuUserPct, cpuKernelPct, cpuIowaitPct, cpuStealPct   system CPU
//	procCpuUserPct, procCpuKernelPct                      server process CPU
//	procCpus, procCpuSetBusyPct                           the CPUs the server process may run on: how many, how busy
//	diskIops                                              reads+writes completed per second
//	diskReadBytesPerSec, diskWriteBytesPerSec             data directory's block device
//	swapInPagesPerSec, swapOutPagesPerSec                 pages swapped in and out (/proc/vmstat's pswpin, pswpout)
//
// Keys contain neither dots nor spaces, so report pipelines can address
// them as ordinary field paths (intervals.server.insertPerSec).
package telemetry
