package ftdcwrite

import (
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// State is what a mongod's FTDC sample says at one instant, in the
// units the server counts in (counters since start, gauges now). The
// field names of Sample come from the server's source: serverStatus
// (opcounters, opLatencies, wiredTiger, queues.execution or
// wiredTiger.concurrentTransactions, globalLock) and systemMetrics
// (ftdc_system_stats_linux.cpp, procparser.cpp).
type State struct {
	// V8 writes MongoDB 8.0's names (wiredTiger.checkpoint.progress
	// state, queues.execution), else 7.0's
	// (wiredTiger.transaction.transaction checkpoint currently running,
	// wiredTiger.concurrentTransactions).
	V8 bool
	// Split writes 8.0's role-split layout (collector.cpp's
	// multi-service schema): "router" for a mongos (serverStatus under
	// router), "shard" for a shard member (serverStatus and
	// replSetGetStatus under shard); systemMetrics under common either
	// way. Empty: the flat layout of every version.
	Split string
	// Version overrides the version the samples and metadata name.
	Version string
	// Filler adds that many counters to serverStatus (a section
	// "filler", each moving with Inserts), to reach the 3,400 to 5,600
	// metrics of an 8.x sample; changing it between samples changes
	// the metric count, and so starts a new chunk, as the server does.
	Filler int
	// StatusError writes serverStatus as the error document a server
	// shutting down answers ({ok: 0, errmsg, code, codeName}).
	StatusError bool

	Inserts, Queries, Updates       int64
	ReadOps, ReadMicros             int64 // opLatencies.reads
	WriteOps, WriteMicros           int64 // opLatencies.writes
	CacheMax, CacheUsed, CacheDirty int64
	AppEvicted                      int64 // pages evicted by application threads
	Checkpointing                   bool
	Checkpoints                     int64 // counted (WiredTiger counts a checkpoint when it starts)
	CheckpointMs                    int64 // the most recent one's duration
	TicketsOut, Tickets             int64 // per kind (read, write): out and totalTickets
	Queued                          int64
	Connections, ConnectionsCreated int64

	// systemMetrics: CPU milliseconds by mode, summed over NumCPUs, and
	// the data disk's counters.
	NumCPUs                             int64
	UserMs, SystemMs, IdleMs, IOWaitMs  int64
	Reads, Writes                       int64
	ReadSectors, WriteSectors           int64
	IOTimeMs, QueuedMs, ReadMs, WriteMs int64
	MemTotalKB, MemAvailableKB          int64
}

// Sample is one FTDC sample of a mongod at t in state s.
func Sample(t time.Time, s State) bson.D {
	at := bson.NewDateTimeFromTime(t)
	var ckpt bson.E
	if s.V8 {
		ckpt = bson.E{Key: "checkpoint", Value: bson.D{
			{Key: "most recent time (msecs)", Value: s.CheckpointMs},
			{Key: "progress state", Value: b2i(s.Checkpointing)},
			{Key: "total succeed number of checkpoints", Value: s.Checkpoints},
		}}
	} else {
		ckpt = bson.E{Key: "transaction", Value: bson.D{
			{Key: "transaction checkpoint currently running", Value: b2i(s.Checkpointing)},
			{Key: "transaction checkpoint most recent time (msecs)", Value: s.CheckpointMs},
			{Key: "transaction checkpoints", Value: s.Checkpoints},
		}}
	}
	tickets := bson.D{
		{Key: "write", Value: bson.D{{Key: "out", Value: int32(s.TicketsOut)}, {Key: "available", Value: int32(s.Tickets - s.TicketsOut)}, {Key: "totalTickets", Value: int32(s.Tickets)}}},
		{Key: "read", Value: bson.D{{Key: "out", Value: int32(0)}, {Key: "available", Value: int32(s.Tickets)}, {Key: "totalTickets", Value: int32(s.Tickets)}}},
	}
	wt := bson.D{
		{Key: "cache", Value: bson.D{
			{Key: "bytes currently in the cache", Value: s.CacheUsed},
			{Key: "maximum bytes configured", Value: float64(s.CacheMax)},
			{Key: "pages evicted by application threads", Value: s.AppEvicted},
			{Key: "tracked dirty bytes in the cache", Value: s.CacheDirty},
		}},
		ckpt,
	}
	ss := bson.D{
		{Key: "host", Value: "db1:27017"},
		{Key: "process", Value: map[bool]string{true: "mongos", false: "mongod"}[s.Split == "router"]},
		{Key: "version", Value: s.version()},
		{Key: "connections", Value: bson.D{{Key: "current", Value: int32(s.Connections)}, {Key: "totalCreated", Value: s.ConnectionsCreated}}},
		{Key: "globalLock", Value: bson.D{{Key: "currentQueue", Value: bson.D{{Key: "total", Value: int32(s.Queued)}}}}},
		{Key: "opLatencies", Value: bson.D{
			{Key: "reads", Value: bson.D{{Key: "latency", Value: s.ReadMicros}, {Key: "ops", Value: s.ReadOps}}},
			{Key: "writes", Value: bson.D{{Key: "latency", Value: s.WriteMicros}, {Key: "ops", Value: s.WriteOps}}},
		}},
		{Key: "opcounters", Value: bson.D{{Key: "insert", Value: s.Inserts}, {Key: "query", Value: s.Queries}, {Key: "update", Value: s.Updates}}},
	}
	if s.V8 {
		ss = append(ss, bson.E{Key: "queues", Value: bson.D{{Key: "execution", Value: tickets}}})
	} else {
		wt = append(wt, bson.E{Key: "concurrentTransactions", Value: tickets})
	}
	ss = append(ss, bson.E{Key: "wiredTiger", Value: wt})
	sys := bson.D{
		{Key: "start", Value: at},
		{Key: "cpu", Value: bson.D{
			{Key: "user_ms", Value: s.UserMs}, {Key: "nice_ms", Value: int64(0)}, {Key: "system_ms", Value: s.SystemMs},
			{Key: "idle_ms", Value: s.IdleMs}, {Key: "iowait_ms", Value: s.IOWaitMs}, {Key: "irq_ms", Value: int64(0)},
			{Key: "softirq_ms", Value: int64(0)}, {Key: "steal_ms", Value: int64(0)}, {Key: "num_cpus", Value: s.NumCPUs},
		}},
		{Key: "memory", Value: bson.D{{Key: "MemTotal_kb", Value: s.MemTotalKB}, {Key: "MemAvailable_kb", Value: s.MemAvailableKB}}},
		{Key: "disks", Value: bson.D{
			{Key: "sda", Value: bson.D{
				{Key: "reads", Value: s.Reads}, {Key: "read_sectors", Value: s.ReadSectors}, {Key: "read_time_ms", Value: s.ReadMs},
				{Key: "writes", Value: s.Writes}, {Key: "write_sectors", Value: s.WriteSectors}, {Key: "write_time_ms", Value: s.WriteMs},
				{Key: "io_time_ms", Value: s.IOTimeMs}, {Key: "io_queued_ms", Value: s.QueuedMs},
			}},
			{Key: "sdb", Value: bson.D{ // an idle second disk
				{Key: "reads", Value: int64(10)}, {Key: "read_sectors", Value: int64(80)}, {Key: "read_time_ms", Value: int64(1)},
				{Key: "writes", Value: int64(0)}, {Key: "write_sectors", Value: int64(0)}, {Key: "write_time_ms", Value: int64(0)},
				{Key: "io_time_ms", Value: int64(1)}, {Key: "io_queued_ms", Value: int64(1)},
			}},
		}},
		{Key: "end", Value: at},
	}
	if s.Filler > 0 {
		filler := make(bson.D, s.Filler)
		for i := range filler {
			filler[i] = bson.E{Key: "f" + strconv.Itoa(i), Value: s.Inserts*int64(i%7) + int64(i)}
		}
		ss = append(ss, bson.E{Key: "filler", Value: filler})
	}
	if s.StatusError {
		ss = bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: "The server is in quiesce mode and will shut down"},
			{Key: "code", Value: int32(91)}, {Key: "codeName", Value: "ShutdownInProgress"}}
	}
	status := bson.E{Key: "serverStatus", Value: append(bson.D{{Key: "start", Value: at}}, append(ss, bson.E{Key: "end", Value: at})...)}
	system := bson.E{Key: "systemMetrics", Value: sys}
	role := func(name string, sections ...bson.E) bson.E {
		d := bson.D{{Key: "start", Value: at}}
		d = append(d, sections...)
		return bson.E{Key: name, Value: append(d, bson.E{Key: "end", Value: at})}
	}
	switch s.Split {
	case "router":
		return bson.D{{Key: "start", Value: at}, role("router", status), role("common", system), {Key: "end", Value: at}}
	case "shard":
		return bson.D{{Key: "start", Value: at}, role("shard", status, ReplSetStatus(t)), role("common", system), {Key: "end", Value: at}}
	}
	return bson.D{{Key: "start", Value: at}, status, system, {Key: "end", Value: at}}
}

// ReplSetStatus is a replSetGetStatus section of a three-member set
// whose secondaries lag 1.5 s and 0.25 s behind the primary at t.
func ReplSetStatus(t time.Time) bson.E {
	at := func(d time.Duration) bson.DateTime { return bson.NewDateTimeFromTime(t.Add(-d)) }
	member := func(name string, state int32, lag time.Duration) bson.D {
		return bson.D{{Key: "name", Value: name}, {Key: "health", Value: 1.0}, {Key: "state", Value: state}, {Key: "optimeDate", Value: at(lag)}}
	}
	return bson.E{Key: "replSetGetStatus", Value: bson.D{
		{Key: "start", Value: bson.NewDateTimeFromTime(t)},
		{Key: "set", Value: "rs0"},
		{Key: "members", Value: bson.A{
			member("db1:27017", 1, 0), member("db2:27017", 2, 1500*time.Millisecond), member("db3:27017", 2, 250*time.Millisecond),
		}},
		{Key: "ok", Value: 1.0},
		{Key: "end", Value: bson.NewDateTimeFromTime(t)},
	}}
}

func (s State) version() string {
	if s.Version != "" {
		return s.Version
	}
	return map[bool]string{true: "8.0.4", false: "7.0.12"}[s.V8]
}

// Metadata is the metadata document of a server of the state's version.
// Under the role-split layout, buildInfo is under common.
func Metadata(s State) bson.D {
	build := bson.E{Key: "buildInfo", Value: bson.D{{Key: "version", Value: s.version()}}}
	if s.Split != "" {
		return bson.D{{Key: "common", Value: bson.D{build}}}
	}
	return bson.D{build}
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
