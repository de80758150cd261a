package telemetry

import "sort"

// Server figure keys; see the package documentation. Opcounter rates use
// the counter's own name followed by "PerSec" (insertPerSec, queryPerSec).
const (
	KeyConnections     = "connections"
	KeyNetIn           = "netInBytesPerSec"
	KeyNetOut          = "netOutBytesPerSec"
	KeyNetPhysicalIn   = "netPhysicalInBytesPerSec"
	KeyNetPhysicalOut  = "netPhysicalOutBytesPerSec"
	KeyCacheBytes      = "cacheBytes"
	KeyCacheDirty      = "cacheDirtyBytes"
	KeyCheckpointing   = "checkpointRunning"
	KeyCheckpoints     = "checkpoints"
	KeyWriteConflicts  = "writeConflictsPerSec"
	KeyReadLatency     = "readLatencyMs"
	KeyWriteLatency    = "writeLatencyMs"
	KeyCommandLatency  = "commandLatencyMs"
	KeyCacheMax        = "cacheMaxBytes"
	KeyAppEviction     = "appEvictionPagesPerSec"
	KeyTicketsOut      = "ticketsOut"
	KeyQueued          = "queuedOps"
	KeyConnCreated     = "connectionsCreatedPerSec"
	KeyTicketsTotal    = "ticketsTotal"
	KeyCheckpointMs    = "checkpointMs"
	KeyReplLag         = "replLagSecs"
	opRateSuffix       = "PerSec"
	opcountersSection  = "opcounters"
	opLatenciesSection = "opLatencies"
)

// serverRates are counters reported as per-second rates.
var serverRates = []struct{ key, path string }{
	{KeyNetIn, "network.bytesIn"},
	{KeyNetOut, "network.bytesOut"},
	{KeyNetPhysicalIn, "network.physicalBytesIn"},
	{KeyNetPhysicalOut, "network.physicalBytesOut"},
	{KeyWriteConflicts, "metrics.operation.writeConflicts"},
	{KeyAppEviction, "wiredTiger.cache.pages evicted by application threads"},
	{KeyConnCreated, "connections.totalCreated"},
}

// serverGauges are values read at the interval's end.
var serverGauges = []struct{ key, path string }{
	{KeyConnections, "connections.current"},
	{KeyCacheBytes, "wiredTiger.cache.bytes currently in the cache"},
	{KeyCacheDirty, "wiredTiger.cache.tracked dirty bytes in the cache"},
	{KeyCacheMax, "wiredTiger.cache.maximum bytes configured"},
	{KeyQueued, "globalLock.currentQueue.total"},
}

// ticketSections hold the execution tickets in use (read.out and
// write.out): MongoDB 8.0's queues.execution, 7.0's
// wiredTiger.concurrentTransactions.
var ticketSections = []string{"queues.execution", "wiredTiger.concurrentTransactions"}

// latencies are opLatencies sections turned into mean milliseconds per op.
var latencies = []struct{ key, section string }{
	{KeyReadLatency, "reads"},
	{KeyWriteLatency, "writes"},
	{KeyCommandLatency, "commands"},
}

// Checkpoint paths: WiredTiger up to MongoDB 6.0 reports checkpoints under
// wiredTiger.transaction; later releases under wiredTiger.checkpoint.
var (
	checkpointRunningPaths = []string{
		"wiredTiger.transaction.transaction checkpoint currently running",
		"wiredTiger.checkpoint.progress state",
	}
	checkpointTimePaths = []string{
		"wiredTiger.transaction.transaction checkpoint most recent time (msecs)",
		"wiredTiger.checkpoint.most recent time (msecs)",
	}
	checkpointCountPaths = []string{
		"wiredTiger.transaction.transaction checkpoints",
		"wiredTiger.checkpoint.total succeed number of checkpoints",
	}
)

// ServerFigures derives an interval's server figures from the serverStatus
// samples at its start and end. A figure whose source the server does not
// report, or whose counter went backwards, is absent. It returns nil when
// either sample is missing.
func ServerFigures(before, after Status) map[string]float64 {
	if before.Doc == nil || after.Doc == nil {
		return nil
	}
	out := map[string]float64{}
	for _, g := range serverGauges {
		put(out, g.key)(Lookup(after.Doc, g.path))
	}
	put(out, KeyCheckpointing)(checkpointRunning(after.Doc))
	put(out, KeyTicketsOut)(ticketsOut(after.Doc))
	put(out, KeyTicketsTotal)(ticketsTotal(after.Doc))
	put(out, KeyReplLag)(maxLag(after.Lags))
	secs := after.Time.Sub(before.Time).Seconds()
	if secs <= 0 {
		return out
	}
	for _, op := range opcounterNames(after.Doc) {
		put(out, op+opRateSuffix)(rate(before.Doc, after.Doc, opcountersSection+"."+op, secs))
	}
	for _, r := range serverRates {
		put(out, r.key)(rate(before.Doc, after.Doc, r.path, secs))
	}
	done, ok := checkpointsDone(before.Doc, after.Doc)
	put(out, KeyCheckpoints)(done, ok)
	put(out, KeyCheckpointMs)(checkpointCompleted(before.Doc, after.Doc, done))
	for _, l := range latencies {
		put(out, l.key)(meanLatencyMs(before.Doc, after.Doc, opLatenciesSection+"."+l.section))
	}
	return out
}

// put returns a setter that stores a value under key when it is present.
func put(m map[string]float64, key string) func(float64, bool) {
	return func(v float64, ok bool) {
		if ok {
			m[key] = v
		}
	}
}

// delta is the increase of a counter between two documents; it fails when
// either side lacks the counter or the counter was reset.
func delta(before, after map[string]any, path string) (float64, bool) {
	b, ok := Lookup(before, path)
	if !ok {
		return 0, false
	}
	a, ok := Lookup(after, path)
	if !ok || a < b {
		return 0, false
	}
	return a - b, true
}

// rate is a counter's increase per second.
func rate(before, after map[string]any, path string, secs float64) (float64, bool) {
	d, ok := delta(before, after, path)
	return d / secs, ok
}

// meanLatencyMs is the mean server-side latency of the operations an
// opLatencies section counted in the interval: its latency total is in
// microseconds.
func meanLatencyMs(before, after map[string]any, section string) (float64, bool) {
	ops, ok := delta(before, after, section+".ops")
	if !ok || ops == 0 {
		return 0, false
	}
	micros, ok := delta(before, after, section+".latency")
	if !ok {
		return 0, false
	}
	return micros / ops / 1000, true
}

// opcounterNames lists the numeric counters under opcounters, sorted.
func opcounterNames(doc map[string]any) []string {
	sec, _ := doc[opcountersSection].(map[string]any)
	names := make([]string, 0, len(sec))
	for name, v := range sec {
		if _, ok := number(v); ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// checkpointRunning is 1 while a checkpoint runs and 0 otherwise.
func checkpointRunning(doc map[string]any) (float64, bool) {
	for _, p := range checkpointRunningPaths {
		if v, ok := Lookup(doc, p); ok {
			return boolFloat(v != 0), true
		}
	}
	return 0, false
}

// ticketsOut is the execution tickets in use, reads and writes.
func ticketsOut(doc map[string]any) (float64, bool) {
	for _, sec := range ticketSections {
		r, okr := Lookup(doc, sec+".read.out")
		w, okw := Lookup(doc, sec+".write.out")
		if okr && okw {
			return r + w, true
		}
	}
	return 0, false
}

// ticketsTotal is the execution tickets there are, reads and writes:
// totalTickets, or out + available where a section lacks it.
func ticketsTotal(doc map[string]any) (float64, bool) {
	for _, sec := range ticketSections {
		var sum float64
		ok := true
		for _, rw := range []string{".read.", ".write."} {
			if t, has := Lookup(doc, sec+rw+"totalTickets"); has {
				sum += t
				continue
			}
			o, has1 := Lookup(doc, sec+rw+"out")
			a, has2 := Lookup(doc, sec+rw+"available")
			if !has1 || !has2 {
				ok = false
				break
			}
			sum += o + a
		}
		if ok {
			return sum, true
		}
	}
	return 0, false
}

// first is the value of the first of paths that doc has.
func first(doc map[string]any, paths []string) (float64, bool) {
	for _, p := range paths {
		if v, ok := Lookup(doc, p); ok {
			return v, true
		}
	}
	return 0, false
}

// checkpointCompleted is the duration of the checkpoint that completed
// between two documents, false when none did. WiredTiger counts a
// checkpoint when it starts and sets its most recent time when it ends,
// so a checkpoint completed when the running flag fell, when the most
// recent time changed, or when one was counted and none runs at the end
// (it started and ended within the interval); its duration is then the
// most recent time at the end.
func checkpointCompleted(before, after map[string]any, started float64) (float64, bool) {
	ms, ok := first(after, checkpointTimePaths)
	if !ok {
		return 0, false
	}
	runB, okB := checkpointRunning(before)
	runA, okA := checkpointRunning(after)
	prev, okP := first(before, checkpointTimePaths)
	fell := okB && okA && runB == 1 && runA == 0
	changed := okP && prev != ms
	within := started > 0 && okA && runA == 0
	return ms, fell || changed || within
}

// checkpointsDone counts the checkpoints WiredTiger counted between two
// documents: it counts each when it starts.
func checkpointsDone(before, after map[string]any) (float64, bool) {
	for _, p := range checkpointCountPaths {
		if _, ok := Lookup(after, p); ok {
			return delta(before, after, p)
		}
	}
	return 0, false
}

// maxLag is the most any secondary lagged; false without secondaries.
func maxLag(lags map[string]float64) (float64, bool) {
	var most float64
	for _, v := range lags {
		most = max(most, v)
	}
	return most, len(lags) > 0
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
