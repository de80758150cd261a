package diagnosis

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
)

// Rule judges one resource: Judge reads the figures it Needs from a run
// and returns its finding, saturated when the share of the ceiling
// reaches Threshold (some rules add conditions of their own, named in
// their Needs).
type Rule struct {
	Name      string
	Resource  string
	Needs     string
	Threshold float64
	Next      string
	judge     func(r *run, f *finding)
}

// Host and server figure keys of the document's intervals (written by the
// telemetry package under these names).
const (
	keyCPUUser      = "cpuUserPct"
	keyCPUKernel    = "cpuKernelPct"
	keyCPUSteal     = "cpuStealPct"
	keyCPUIOWait    = "cpuIowaitPct"
	keyProcUser     = "procCpuUserPct"
	keyProcKernel   = "procCpuKernelPct"
	keyProcCPUs     = "procCpus"
	keyProcSetBusy  = "procCpuSetBusyPct"
	keyDiskIOPS     = "diskIops"
	keyDiskRead     = "diskReadBytesPerSec"
	keyDiskWrite    = "diskWriteBytesPerSec"
	keyNetIn        = "netInBytesPerSec"
	keyNetOut       = "netOutBytesPerSec"
	keyCacheBytes   = "cacheBytes"
	keyCacheDirty   = "cacheDirtyBytes"
	keyCheckpointOn = "checkpointRunning"
	keyCheckpoints  = "checkpoints"
	keyCacheMax     = "cacheMaxBytes"
	keyTicketsOut   = "ticketsOut"
	keyTicketsTotal = "ticketsTotal"
	keyConflicts    = "writeConflictsPerSec"
)

// Thresholds and defaults of the rules.
const (
	// lateBound is the share of intended operations sent late or dropped
	// past which the schedule was not kept (the engine's own bound).
	lateBound = 0.10
	// WiredTiger's default eviction settings: eviction_target,
	// eviction_trigger, eviction_dirty_target, eviction_dirty_trigger.
	evictionTarget       = 0.80
	evictionTrigger      = 0.95
	evictionDirtyTrigger = 0.20
	// cacheMissPerOp is the pages read into cache per operation past which
	// the working set does not fit the cache.
	cacheMissPerOp = 0.1
	// spikeFactor: an interval's p99 above this many times the median
	// interval p99 is a spike.
	spikeFactor = 2.0
	// ticketQueuePerOp is the operations queued for a ticket per
	// operation past which tickets limited the run.
	ticketQueuePerOp = 0.01
	// setBusy is the busy share of the server's CPUs past which they are
	// saturated even when other processes took part of them.
	setBusy = 0.95
)

// Rules returns the rules in order of precedence: when several resources
// saturate, the first names the limit (a cause before its consequences:
// conflicts burn server CPU, a slow server fills every worker, so the
// in-flight cap comes last).
func Rules() []Rule {
	return []Rule{
		{Name: "client-cpu", Resource: "client CPU", Threshold: 0.9,
			Needs: "client.cpuPct and client.cores (the cores the client may use)",
			Next:  "run the client on more cores or another machine, or use several clients", judge: clientCPU},
		{Name: "client-schedule", Resource: "client schedule", Threshold: 1,
			Needs: "open loop: schedule.intended, late and dropped; intervals' peakInFlight (workers free); schedule.precision",
			Next:  "the client could not keep its schedule with workers free: give it more CPU, or lower --rate", judge: clientSchedule},
		{Name: "write-conflicts", Resource: "write conflicts", Threshold: 0.1,
			Needs: "operations' writeConflict errors, testResults.retries and retryCauses, the server's writeConflictsPerSec",
			Next:  "operations contend for the same documents: spread them over more keys (or summary buckets), keep transactions short", judge: writeConflicts},
		{Name: "server-cpu", Resource: "server CPU", Threshold: 0.9,
			Needs: "the server process's CPU (intervals' procCpu*Pct or PROCESS_NORMALIZED_CPU_*) and its cores (its CPU set, variant.instance.vCPU, or this host's)",
			Next:  "give the server more cores, or make each operation cheaper (indexes, smaller documents, fewer round trips)", judge: serverCPU},
		{Name: "disk-throughput", Resource: "disk throughput", Threshold: 0.85,
			Needs: "the data device's bytes/s (intervals' disk*BytesPerSec or DISK_PARTITION_THROUGHPUT_*) and a ceiling (--disk-limit)",
			Next:  "a disk with more throughput, compression that writes fewer bytes, or smaller documents", judge: diskThroughput},
		{Name: "disk-iops", Resource: "disk IOPS", Threshold: 0.85,
			Needs: "the data device's IOPS (intervals' diskIops or DISK_PARTITION_IOPS_TOTAL) and a ceiling (--disk-limit or variant.instance.atlasIOPS)",
			Next:  "provision more IOPS, or batch writes so each I/O carries more", judge: diskIOPS},
		{Name: "cache", Resource: "storage-engine cache", Threshold: 1,
			Needs: "serverStatus wiredTiger.cache: maximum bytes configured, bytes currently in the cache, tracked dirty bytes, pages read into cache, pages evicted by application threads (or the FTDC series CACHE_MAX_BYTES, CACHE_USED_BYTES, CACHE_DIRTY_BYTES, CACHE_PAGES_EVICTED_BY_APP_THREADS)",
			Next:  "a larger cache (more RAM), a smaller working set, or a faster disk for eviction", judge: cache},
		{Name: "checkpoints", Resource: "checkpoints", Threshold: 0.5,
			Needs: "intervals' checkpointRunning or checkpoints (serverStatus wiredTiger.checkpoint or wiredTiger.transaction), else the FTDC series CHECKPOINT_RUNNING and CHECKPOINTS_COMPLETED, and interval p99s",
			Next:  "checkpoint I/O stalls operations: a disk with more throughput, or a smaller dirty cache so each checkpoint writes less", judge: checkpoints},
		{Name: "tickets", Resource: "execution tickets", Threshold: 0.9,
			Needs: "serverStatus queues.execution or wiredTiger.concurrentTransactions: out, available, totalTickets, addedToQueue (or the intervals' ticketsOut and ticketsTotal, or the FTDC series TICKETS_OUT and TICKETS_TOTAL)",
			Next:  "operations wait for storage-engine tickets: find what holds them (slow disk, long operations) before raising their number", judge: tickets},
		{Name: "replication", Resource: "replication wait", Threshold: 0.5,
			Needs: "serverStatus metrics.getLastError.wtime (num, totalMillis) and the operations' mean latency",
			Next:  "writes wait for the majority: faster secondaries or network, or a weaker write concern where the data allows", judge: replication},
		{Name: "network", Resource: "network", Threshold: 0.85,
			Needs: "the server's network bytes/s (intervals' netIn/OutBytesPerSec) and a link speed (--link)",
			Next:  "a faster link, compression, or smaller documents and projections", judge: network},
		{Name: "host-cpu", Resource: "host CPU", Threshold: 0.9,
			Needs: "the host's CPU (intervals' cpu*Pct or SYSTEM_NORMALIZED_CPU_*)",
			Next:  "other processes take the host's CPU: measure on a quiet host, or run the client elsewhere", judge: hostCPU},
		{Name: "in-flight-cap", Resource: "in-flight cap", Threshold: 1,
			Needs: "open loop: intervals' peakInFlight, schedule.workers, late and dropped",
			Next:  "every allowed operation was in flight while the schedule fell behind: raise --threads if the server has headroom, else the server's latency is the limit", judge: inFlightCap},
	}
}

// finding is a rule's finding under construction.
type finding struct {
	result.Finding
	extra bool // saturated by a condition of the rule's own beyond the share
}

func (f *finding) missing(what string) { f.Missing = what }

// judged records the figure, its ceiling and where the ceiling comes
// from; the share follows.
func (f *finding) judged(value, limit float64, unit, from string) {
	f.Value, f.Limit, f.Unit, f.LimitFrom = result.F(value), result.F(limit), unit, from
	if limit > 0 {
		f.Share = result.F(value / limit)
	}
}

func (f *finding) say(format string, args ...any) {
	if f.Evidence != "" {
		f.Evidence += "; "
	}
	f.Evidence += fmt.Sprintf(format, args...)
}

func clientCPU(r *run, f *finding) {
	c := r.d.Client
	if c.Cores <= 0 {
		f.missing("client.cores (how many cores the client may use)")
		return
	}
	f.judged(c.CPUPercent, 100, "%", fmt.Sprintf("%s of the client", plural(float64(c.Cores), "core")))
	f.say("client CPU %s%% of its %s", num(c.CPUPercent), plural(float64(c.Cores), "core"))
	var peak float64
	for _, iv := range r.d.Intervals {
		if iv.ClientCPU != nil {
			peak = max(peak, *iv.ClientCPU)
		}
	}
	if peak > 0 {
		f.say("peak interval %s%%", num(peak))
	}
	if c.CPUPerOp != nil {
		f.say("%s µs CPU per operation", num(*c.CPUPerOp))
	}
}

func clientSchedule(r *run, f *finding) {
	s := r.d.Schedule
	if s.Mode != "open" || s.Intended == 0 {
		f.missing("an open-loop schedule (a closed loop has no schedule to keep)")
		return
	}
	behind := float64(s.Late+s.Dropped) / float64(s.Intended)
	f.judged(100*behind, 100*lateBound, "% of intended late or dropped", "the engine's lateness bound")
	f.say("%d of %d intended operations late, %d dropped, max lag %s ms", s.Late, s.Intended, s.Dropped, num(s.MaxLag))
	if p := s.Precision; p != nil && p.Judged && p.Share != nil && p.SendLagP99 != nil {
		f.say("send lag p99 %s ms is %s%% of the smallest latency p50 (bound %s%%)", num(*p.SendLagP99), num(100**p.Share), num(100*p.Bound))
	}
	if behind < lateBound {
		return
	}
	peak, ok := r.peakInFlight()
	switch {
	case ok && peak >= int64(s.Workers):
		f.say("every one of the %d workers was in flight, so the server's latency, not the client, held the schedule back", s.Workers)
		f.Share = result.F(min(*f.Share, 0.99))
	case ok:
		f.say("at most %d of %d workers in flight: workers were free", peak, s.Workers)
	case !r.d.Client.ClientBound:
		f.Share = result.F(min(*f.Share, 0.99))
		f.say("peak in flight not recorded and the engine did not judge the run client-bound")
	}
}

func writeConflicts(r *run, f *finding) {
	completed := r.completed()
	if completed == 0 {
		f.missing("completed operations")
		return
	}
	errs := r.errors()
	conflicts := float64(errs.WriteConflict)
	attempts := float64(completed)
	var parts []string
	if rt := r.d.TestResults.Retries; rt != nil {
		conflicts += float64(*rt)
		attempts += float64(*rt)
		parts = append(parts, fmt.Sprintf("%d retries%s", *rt, causes(r.d.TestResults.RetryCauses)))
	}
	if errs.WriteConflict > 0 {
		parts = append(parts, fmt.Sprintf("%d operations failed with a write conflict", errs.WriteConflict))
	}
	if s, ok := r.interval(false, keyConflicts); ok {
		server := s.Mean * r.secs
		conflicts += server
		attempts += server
		parts = append(parts, fmt.Sprintf("the server retried %s write conflicts itself (%s/s)", num(server), num(s.Mean)))
	}
	f.judged(100*conflicts/attempts, 100, "% of attempts", "all attempts")
	if len(parts) == 0 {
		parts = append(parts, "no write conflict reached the client")
	}
	f.say("%s for %d operations: %s%% of attempts conflicted", strings.Join(parts, ", "), completed, num(100*conflicts/attempts))
}

func causes(m map[string]int64) string {
	if len(m) == 0 {
		return ""
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, fmt.Sprintf("%s %d", k, m[k]))
	}
	return " (" + strings.Join(out, ", ") + ")"
}

func serverCPU(r *run, f *finding) {
	proc, ok := r.hostFigure([]string{keyProcUser, keyProcKernel}, []string{result.ProcessCPUUser, result.ProcessCPUKernel})
	if !ok {
		f.missing("the server process's CPU (the server is not on this host, or its process could not be read)")
		return
	}
	if !r.d.Target.SameHost || r.d.Generator.Cores <= 0 {
		f.judged(proc.Mean, 100, "%", "the server's cores (normalized figure)")
		f.say("server process CPU %s%% of its cores, peak %s%%", num(proc.Mean), num(proc.Peak))
		return
	}
	hostCores := float64(r.d.Generator.Cores)
	cores, from := hostCores, "this host's cores"
	if s, ok := r.interval(true, keyProcCPUs); ok && s.Mean > 0 {
		cores, from = s.Mean, "the server process's CPU set"
	} else if in := result.VariantOf(r.d).Instance; in != nil && in.VCPU > 0 {
		cores, from = float64(in.VCPU), "variant.instance.vCPU"
	}
	used := proc.Mean / 100 * hostCores
	f.judged(used, cores, "cores", from)
	f.say("server process %s of %s (%s%%), peak interval %s", num(used), plural(cores, "core"), num(100*used/cores), num(proc.Peak/100*hostCores))
	if busy, ok := r.interval(true, keyProcSetBusy); ok && cores < hostCores {
		f.say("its CPUs %s%% busy", num(busy.Mean))
		if busy.Mean/100 >= setBusy && used/cores >= 0.5 && used/cores < f.Threshold {
			f.extra = true
			f.say("the rest taken by other processes")
		}
	}
}

func diskThroughput(r *run, f *finding) {
	s, ok := r.hostFigure([]string{keyDiskRead, keyDiskWrite}, []string{result.DiskReadBytes, result.DiskWriteBytes})
	if !ok {
		f.missing("disk throughput (the data directory's device is not visible from this host)")
		return
	}
	w, _ := r.hostFigure([]string{keyDiskWrite}, []string{result.DiskWriteBytes})
	rd, _ := r.hostFigure([]string{keyDiskRead}, []string{result.DiskReadBytes})
	detail := fmt.Sprintf("write %s, read %s MB/s, peak interval %s MB/s", mb(w.Mean), mb(rd.Mean), mb(s.Peak))
	if io, ok := r.hostFigure([]string{keyCPUIOWait}, []string{result.CPUIOWait}); ok {
		detail += fmt.Sprintf(", CPU iowait %s%%", num(io.Mean))
	}
	if r.limits.DiskBytesPerSec <= 0 {
		f.Value, f.Unit = result.F(s.Mean), "bytes/s"
		f.missing(fmt.Sprintf("a disk throughput ceiling (state one with --disk-limit); measured %s MB/s (%s)", mb(s.Mean), detail))
		return
	}
	f.judged(s.Mean, r.limits.DiskBytesPerSec, "bytes/s", "--disk-limit")
	f.say("disk %s of %s MB/s (%s%%): %s", mb(s.Mean), mb(r.limits.DiskBytesPerSec), num(100*s.Mean/r.limits.DiskBytesPerSec), detail)
}

func diskIOPS(r *run, f *finding) {
	s, ok := r.hostFigure([]string{keyDiskIOPS}, []string{result.DiskIOPS})
	if !ok {
		f.missing("disk IOPS (the data directory's device is not visible from this host)")
		return
	}
	limit, from := r.limits.DiskIOPS, "--disk-limit"
	if limit <= 0 {
		if in := result.VariantOf(r.d).Instance; in != nil && in.AtlasIOPS > 0 {
			limit, from = float64(in.AtlasIOPS), "variant.instance.atlasIOPS"
		}
	}
	if limit <= 0 {
		f.Value, f.Unit = result.F(s.Mean), "IOPS"
		f.missing(fmt.Sprintf("an IOPS ceiling (state one with --disk-limit, or the target's iops); measured %s IOPS, peak %s", num(s.Mean), num(s.Peak)))
		return
	}
	f.judged(s.Mean, limit, "IOPS", from)
	f.say("%s of %s IOPS (%s%%), peak interval %s; ceiling from %s", num(s.Mean), num(limit), num(100*s.Mean/limit), num(s.Peak), from)
}

func cache(r *run, f *finding) {
	const sec = "wiredTiger.cache."
	maxBytes, ok := r.status(false, sec+"maximum bytes configured")
	if !ok {
		maxBytes, ok = r.status(true, sec+"maximum bytes configured")
	}
	if !ok || maxBytes <= 0 { // the intervals', else FTDC's series
		var s stat
		if s, ok = r.serverFigure(keyCacheMax, result.CacheMax); ok {
			maxBytes = s.Peak
		}
	}
	if !ok || maxBytes <= 0 {
		f.missing("serverStatus wiredTiger.cache (the server reports no WiredTiger section, and the run has no FTDC series of it)")
		return
	}
	gauge := func(key, series, path string) float64 {
		if s, ok := r.serverFigure(key, series); ok {
			return s.Peak
		}
		a, _ := r.status(false, sec+path)
		b, _ := r.status(true, sec+path)
		return max(a, b)
	}
	used := gauge(keyCacheBytes, result.CacheUsed, "bytes currently in the cache") / maxBytes
	dirty := gauge(keyCacheDirty, result.CacheDirty, "tracked dirty bytes in the cache") / maxBytes
	if used/evictionTrigger >= dirty/evictionDirtyTrigger {
		f.judged(100*used, 100*evictionTrigger, "% of cache used", "WiredTiger's eviction_trigger")
	} else {
		f.judged(100*dirty, 100*evictionDirtyTrigger, "% of cache dirty", "WiredTiger's eviction_dirty_trigger")
	}
	f.say("cache %s MB: peak %s%% used (eviction target %s%%, trigger %s%%), %s%% dirty (trigger %s%%)",
		mb(maxBytes), num(100*used), num(100*evictionTarget), num(100*evictionTrigger), num(100*dirty), num(100*evictionDirtyTrigger))
	if n := r.completed(); n > 0 {
		if pages, ok := r.statusDelta(sec + "pages read into cache"); ok {
			per := pages / float64(n)
			f.say("%s pages read into cache (%s per operation)", num(pages), num(per))
			if used >= evictionTarget && per >= cacheMissPerOp {
				f.extra = true
				f.say("the working set does not fit the cache")
			}
		}
	}
	ev, ok := r.statusDelta(sec + "pages evicted by application threads")
	if !ok {
		ev, ok = r.seriesTotal(result.CacheAppEviction)
	}
	if ok && ev > 0 {
		f.extra = true
		f.say("application threads evicted %s pages themselves", num(ev))
	}
}

func checkpoints(r *run, f *finding) {
	var in, out, all []float64
	seen, ran := false, 0
	running := r.checkpointing()
	for i, iv := range r.d.Intervals {
		on, n, has := running(i)
		if !has {
			continue
		}
		seen = true
		p := worstP99(iv)
		if math.IsNaN(p) {
			continue
		}
		all = append(all, p)
		if on > 0 || n > 0 {
			ran++
			in = append(in, p)
		} else {
			out = append(out, p)
		}
	}
	if !seen {
		f.missing("checkpoint figures (serverStatus wiredTiger.checkpoint or wiredTiger.transaction, or the run's FTDC series)")
		return
	}
	if len(all) == 0 {
		f.missing("interval latency p99s")
		return
	}
	med := median(all)
	var spikes, aligned int
	for i, iv := range r.d.Intervals {
		p := worstP99(iv)
		if math.IsNaN(p) || p <= spikeFactor*med {
			continue
		}
		spikes++
		if on, n, _ := running(i); on > 0 || n > 0 {
			aligned++
		}
	}
	f.judged(float64(aligned), float64(spikes), "p99 spikes during checkpoints", fmt.Sprintf("intervals with p99 above %s× the median", num(spikeFactor)))
	if spikes == 0 {
		f.Share = result.F(0)
	}
	f.say("%d of %d p99 spikes (above %s× the median interval p99, %s ms) during checkpoints; %d of %d intervals had a checkpoint",
		aligned, spikes, num(spikeFactor), num(med), ran, len(all))
	if len(in) > 0 && len(out) > 0 {
		f.say("median interval p99 %s ms with a checkpoint, %s ms without", num(median(in)), num(median(out)))
	}
}

func tickets(r *run, f *finding) {
	var outMax, total float64
	var queued float64
	found, queuedFound := false, false
	for _, rw := range []string{"read", "write"} {
		for _, sec := range []string{"queues.execution." + rw, "wiredTiger.concurrentTransactions." + rw} {
			for _, before := range []bool{true, false} {
				o, ok := r.status(before, sec+".out")
				if !ok {
					continue
				}
				t, ok := r.status(before, sec+".totalTickets")
				if !ok {
					a, ok2 := r.status(before, sec+".available")
					if !ok2 {
						continue
					}
					t = o + a
				}
				if t > 0 && (!found || o/t > outMax/total) {
					outMax, total = o, t
				}
				found = true
			}
			if q, ok := r.statusDelta(sec + ".addedToQueue"); ok {
				queued += q
				queuedFound = true
			}
			if found {
				break
			}
		}
	}
	where := "at the phase's bounds"
	if o, t, ok := r.ticketsPeak(); ok && (!found || total <= 0 || o/t > outMax/total) {
		outMax, total, found = o, t, true
		where = "in any interval"
	}
	if !found || total <= 0 {
		f.missing("serverStatus tickets (queues.execution or wiredTiger.concurrentTransactions, or the run's FTDC series)")
		return
	}
	f.judged(outMax, total, "tickets out", "totalTickets")
	f.say("at most %s of %s tickets out %s", num(outMax), num(total), where)
	if q, ok := r.status(false, "globalLock.currentQueue.total"); ok {
		f.say("%s operations queued at the end", num(q))
	}
	if n := r.completed(); queuedFound && n > 0 {
		f.say("%s operations waited for a ticket (%s per operation)", num(queued), num(queued/float64(n)))
		if queued/float64(n) >= ticketQueuePerOp {
			f.extra = true
		}
	}
}

func replication(r *run, f *finding) {
	num0, ok := r.statusDelta("metrics.getLastError.wtime.num")
	if !ok {
		f.missing("serverStatus metrics.getLastError.wtime (time writes waited for their write concern)")
		return
	}
	millis, _ := r.statusDelta("metrics.getLastError.wtime.totalMillis")
	lat, ok := r.meanLatency()
	if !ok || lat <= 0 {
		f.missing("the operations' mean latency")
		return
	}
	if num0 == 0 {
		f.judged(0, lat, "ms", "the operations' mean latency")
		f.say("no write waited for replication")
		return
	}
	wait := millis / num0
	f.judged(wait, lat, "ms", "the operations' mean latency")
	f.say("%s writes waited for their write concern, %s ms each on average, against a mean latency of %s ms", num(num0), num(wait), num(lat))
	if w, ok := r.status(false, "metrics.repl.waiters.replication"); ok {
		f.say("%s waiting at the end", num(w))
	}
}

func network(r *run, f *finding) {
	in, okIn := r.interval(false, keyNetIn)
	out, okOut := r.interval(false, keyNetOut)
	if !okIn && !okOut {
		f.missing("the server's network bytes (serverStatus network.bytesIn/Out)")
		return
	}
	busiest := max(in.Mean, out.Mean)
	detail := fmt.Sprintf("in %s, out %s MB/s", mb(in.Mean), mb(out.Mean))
	if r.limits.LinkBytesPerSec <= 0 {
		f.Value, f.Unit = result.F(busiest), "bytes/s"
		f.missing(fmt.Sprintf("a link speed (state one with --link); measured %s", detail))
		return
	}
	f.judged(busiest, r.limits.LinkBytesPerSec, "bytes/s", "--link")
	f.say("%s of %s MB/s each way (%s%%): %s", mb(busiest), mb(r.limits.LinkBytesPerSec), num(100*busiest/r.limits.LinkBytesPerSec), detail)
}

func inFlightCap(r *run, f *finding) {
	s := r.d.Schedule
	if s.Mode != "open" {
		f.missing(fmt.Sprintf("an open loop (a closed loop keeps all %d workers in flight; see Little's law)", s.Workers))
		return
	}
	peak, ok := r.peakInFlight()
	if !ok || s.Workers <= 0 {
		f.missing("intervals' peakInFlight")
		return
	}
	f.judged(float64(peak), float64(s.Workers), "operations in flight", "--threads")
	behind := s.Intended > 0 && (s.Dropped > 0 || float64(s.Late) >= lateBound*float64(s.Intended))
	f.say("at most %d of %d operations in flight", peak, s.Workers)
	if peak >= int64(s.Workers) && !behind {
		f.Share = result.F(0.99)
		f.say("the cap was reached but the schedule was kept")
	} else if behind && peak >= int64(s.Workers) {
		f.say("while %d of %d intended operations were late or dropped", s.Late+s.Dropped, s.Intended)
	}
}

func hostCPU(r *run, f *finding) {
	s, ok := r.hostFigure([]string{keyCPUUser, keyCPUKernel, keyCPUSteal}, []string{result.CPUUser, result.CPUKernel})
	if !ok {
		f.missing("the host's CPU (the server is not on this host)")
		return
	}
	cores := r.d.Generator.Cores
	f.judged(s.Mean, 100, "%", "all of the host's cores")
	if cores > 0 {
		f.say("host CPU %s%% of %s, peak interval %s%%", num(s.Mean), plural(float64(cores), "core"), num(s.Peak))
	} else {
		f.say("host CPU %s%%, peak interval %s%%", num(s.Mean), num(s.Peak))
	}
	if !r.d.Target.SameHost || cores <= 0 {
		return
	}
	hostCores := float64(cores)
	rest := s.Mean
	var parts []string
	if p, ok := r.interval(true, keyProcUser, keyProcKernel); ok {
		parts = append(parts, fmt.Sprintf("the server %s%%", num(p.Mean)))
		rest -= p.Mean
	}
	if c := r.d.Client; c.Cores > 0 {
		client := c.CPUPercent * float64(c.Cores) / hostCores
		parts = append(parts, fmt.Sprintf("the client %s%%", num(client)))
		rest -= client
	}
	parts = append(parts, fmt.Sprintf("other processes %s%%", num(max(rest, 0))))
	f.say("%s", strings.Join(parts, ", "))
}

// median is the lower median: one of the values, so no two percentiles
// are ever averaged.
func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	return s[(len(s)-1)/2]
}
