package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/connect"
	"github.com/mongobench/mongobench/internal/ftdc"
)

// SourceFTDC marks host readings taken from the server's own full-time
// diagnostic data (getDiagnosticData's systemMetrics, or its files).
const SourceFTDC = "ftdc"

// DiagnosticData reads the server's host from getDiagnosticData: the
// latest one-second sample of the server's own FTDC collectors, whose
// systemMetrics section holds /proc's CPU, disk and memory counters on
// Linux. Each reading is stamped with the sample's own start, so rates
// between two readings span the server's own collection instants.
type DiagnosticData struct {
	client *mongo.Client
}

// NewDiagnosticData connects to uri and asks for one sample. It returns
// an error naming why the server does not give its host this way: the
// command refused (not authorised, or a server without it), an empty
// answer, or a sample without systemMetrics (a mongos without an FTDC
// directory, a platform without /proc).
func NewDiagnosticData(ctx context.Context, uri string) (*DiagnosticData, error) {
	c, err := connect.Open(uri, connect.Settings{AppName: "mongobench-ftdc"})
	if err != nil {
		return nil, fmt.Errorf("getDiagnosticData: %w", err)
	}
	return DiagnosticDataOf(ctx, c)
}

// DiagnosticDataOf reads the diagnostic data of the server c is
// connected to (a replica set member over a direct connection), and asks
// for one sample as NewDiagnosticData does. It owns c from then on: it
// disconnects c when the server does not give its host, and on Close.
func DiagnosticDataOf(ctx context.Context, c *mongo.Client) (*DiagnosticData, error) {
	d := &DiagnosticData{client: c}
	if _, err := d.ReadContext(ctx); err != nil {
		_ = c.Disconnect(context.Background()) // the server gives nothing to read; its goodbye changes nothing
		return nil, err
	}
	return d, nil
}

// Close disconnects.
func (d *DiagnosticData) Close(ctx context.Context) error { return d.client.Disconnect(ctx) }

// Read implements HostReader.
func (d *DiagnosticData) Read() (HostSample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return d.ReadContext(ctx)
}

// ReadContext asks for the latest sample and reads its host.
func (d *DiagnosticData) ReadContext(ctx context.Context) (HostSample, error) {
	data, err := d.latest(ctx)
	if err != nil {
		return HostSample{}, err
	}
	return HostFromDiagnosticData(data)
}

// Sample asks for the latest sample and reads both its serverStatus and
// its host, at the sample's own start: the sampler's one call per tick
// when this is its host's source (Sampler.take).
func (d *DiagnosticData) Sample(ctx context.Context) (Status, HostSample, error) {
	data, err := d.latest(ctx)
	if err != nil {
		return Status{}, HostSample{}, err
	}
	return SampleFromDiagnosticData(data)
}

// latest is getDiagnosticData's data document.
func (d *DiagnosticData) latest(ctx context.Context) (bson.Raw, error) {
	var reply bson.Raw
	err := d.client.Database("admin").RunCommand(ctx, bson.D{{Key: "getDiagnosticData", Value: 1}}).Decode(&reply)
	if err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("getDiagnosticData refused (%s): %s", ce.Name, ce.Message)
		}
		return nil, fmt.Errorf("getDiagnosticData: %w", err)
	}
	data, err := reply.LookupErr("data")
	if err != nil || data.Type != bson.TypeEmbeddedDocument {
		return nil, errors.New("getDiagnosticData answered without a data document")
	}
	return bson.Raw(data.Value), nil
}

// SampleFromDiagnosticData reads one FTDC sample document
// (getDiagnosticData's data) as the sampler's, by the code that reads a
// file's samples: the document is a chunk of one sample
// (ftdc.SampleChunk) read by FTDCSamples, its sections found by the same
// layout (flat, or role-split on 8.0's mongos, config servers and shard
// members). Its serverStatus section is the serverStatus reply (Source
// "ftdc"), with the replication lag of each secondary from its
// replSetGetStatus section, and its host (HostFromDiagnosticData), both
// stamped with the sample's start. A sample without serverStatus gives a
// Status without Doc (its figures missing); the error is the host's.
func SampleFromDiagnosticData(doc bson.Raw) (Status, HostSample, error) {
	c, err := ftdc.SampleChunk(doc)
	if err != nil {
		return Status{}, HostSample{}, fmt.Errorf("getDiagnosticData: the sample: %w", err)
	}
	smps := FTDCSamples(c)
	if len(smps) != 1 {
		return Status{}, HostSample{}, errors.New("getDiagnosticData: the sample has no start date")
	}
	s := smps[0]
	st := s.Status
	st.Time, st.Source = s.Time, SourceFTDC
	if s.Host == nil {
		return st, HostSample{Time: s.Time, Source: SourceFTDC}, errors.New("getDiagnosticData: the sample has no systemMetrics (a mongos without an FTDC directory, or a platform the server does not read)")
	}
	return st, *s.Host, nil
}

// ReplicationLags reads each secondary's replication lag, in seconds,
// from a replSetGetStatus reply (or an FTDC sample's section of it): the
// primary's optimeDate minus the secondary's, as the primary last heard
// it; a secondary ahead of the primary's last heard optime lags 0. Nil
// when the reply names no primary (no lag can be told) or no secondary.
func ReplicationLags(rs bson.Raw) map[string]float64 {
	var members []replMember
	for _, m := range replyMembers(rs) {
		if !m.at.IsZero() {
			members = append(members, m)
		}
	}
	return lagsOf(members)
}

// MemberStates reads each member's state from a replSetGetStatus reply
// (or an FTDC sample's section of it), by its name: the server's
// MemberState (0 startup, 1 primary, 2 secondary, 3 recovering, 5
// startup2, 6 unknown, 7 arbiter, 8 down, 9 rollback, 10 removed). Nil
// when the reply lists no member.
func MemberStates(rs bson.Raw) map[string]int64 {
	var out map[string]int64
	for _, m := range replyMembers(rs) {
		if out == nil {
			out = map[string]int64{}
		}
		out[m.name] = m.state
	}
	return out
}

// replyMembers are the members a replSetGetStatus reply lists with a name
// and a state, each with its optimeDate when the reply gives one as a
// date (else at is zero).
func replyMembers(rs bson.Raw) []replMember {
	arr, err := rs.LookupErr("members")
	if err != nil || arr.Type != bson.TypeArray {
		return nil
	}
	vals, err := arr.Array().Values()
	if err != nil {
		return nil
	}
	var members []replMember
	for _, v := range vals {
		m, ok := v.DocumentOK()
		if !ok {
			continue
		}
		name, _ := m.Lookup("name").StringValueOK()
		state, ok := m.Lookup("state").AsInt64OK()
		if name == "" || !ok {
			continue
		}
		rm := replMember{name: name, state: state}
		if od := m.Lookup("optimeDate"); od.Type == bson.TypeDateTime {
			rm.at = od.Time()
		}
		members = append(members, rm)
	}
	return members
}

// replMember is one member of a replSetGetStatus reply.
type replMember struct {
	name  string
	state int64
	at    time.Time
}

// lagsOf is each secondary's lag behind the primary (ReplicationLags).
func lagsOf(members []replMember) map[string]float64 {
	var primary *replMember
	for i := range members {
		if members[i].state == replPrimary {
			primary = &members[i]
		}
	}
	if primary == nil {
		return nil
	}
	var out map[string]float64
	for _, m := range members {
		if m.state != replSecondary {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[m.name] = max(primary.at.Sub(m.at).Seconds(), 0)
	}
	return out
}

// Member states of replSetGetStatus (MemberState in the server's
// source).
const (
	replPrimary   = 1
	replSecondary = 2
)

// HostFromDiagnosticData reads a host sample from one FTDC sample
// document (getDiagnosticData's data, or a sample decoded from an FTDC
// file), as SampleFromDiagnosticData does: its start time, and from
// systemMetrics (field names of the server's ftdc_system_stats_linux.cpp
// and procparser.cpp) cpu.*_ms and num_cpus, the busiest disk of
// disks.<device> (the physical disks the server lists; the one with the
// most sectors moved since boot stands for the data disk) and
// memory.MemTotal_kb and MemAvailable_kb.
func HostFromDiagnosticData(doc bson.Raw) (HostSample, error) {
	_, h, err := SampleFromDiagnosticData(doc)
	return h, err
}

// systemMetrics reads the fields of a sample's systemMetrics section
// from a decoded FTDC chunk's columns (a file's chunk, or a live
// getDiagnosticData sample as a chunk of one).
type systemMetrics interface {
	// number is the value at a dotted path under systemMetrics.
	number(path string) (float64, bool)
	// children are the names of the documents under a path (disks'
	// devices), in order.
	children(path string) []string
}

// hostFromSystemMetrics fills s from systemMetrics (field names of the
// server's ftdc_system_stats_linux.cpp and procparser.cpp).
func hostFromSystemMetrics(s HostSample, sys systemMetrics) HostSample {
	var t CPUTimes
	ok := true
	for _, f := range []struct {
		key string
		dst *float64
	}{{"user_ms", &t.User}, {"nice_ms", &t.Nice}, {"system_ms", &t.System}, {"idle_ms", &t.Idle},
		{"iowait_ms", &t.IOWait}, {"irq_ms", &t.IRQ}, {"softirq_ms", &t.SoftIRQ}, {"steal_ms", &t.Steal}} {
		v, has := sys.number("cpu." + f.key)
		ok = ok && has
		*f.dst = v / 1000
	}
	if ok {
		s.CPU = &t
	}
	if n, ok := sys.number("cpu.num_cpus"); ok {
		s.Cores = int(n)
	}
	s.Disk = busiestDisk(sys)
	if total, ok := sys.number("memory.MemTotal_kb"); ok {
		if avail, ok := sys.number("memory.MemAvailable_kb"); ok {
			s.Memory = &Memory{Total: uint64(total) * 1024, Available: uint64(avail) * 1024}
		}
	}
	return s
}

// busiestDisk is the disk with the most sectors read and written.
func busiestDisk(sys systemMetrics) *DiskCounters {
	var list []DiskCounters
	for _, dev := range sys.children("disks") {
		get := func(k string) (uint64, bool) {
			f, ok := sys.number("disks." + dev + "." + k)
			return uint64(f), ok
		}
		c := DiskCounters{Device: dev}
		var ok1, ok2, ok3, ok4 bool
		c.ReadIOs, ok1 = get("reads")
		c.WriteIOs, ok2 = get("writes")
		c.ReadSectors, ok3 = get("read_sectors")
		c.WriteSectors, ok4 = get("write_sectors")
		if !ok1 || !ok2 || !ok3 || !ok4 {
			continue
		}
		var t DiskTiming
		var t1, t2, t3, t4 bool
		t.IOTimeMs, t1 = get("io_time_ms")
		t.QueuedMs, t2 = get("io_queued_ms")
		t.ReadTimeMs, t3 = get("read_time_ms")
		t.WriteTimeMs, t4 = get("write_time_ms")
		if t1 && t2 && t3 && t4 {
			c.Timing = &t
		}
		list = append(list, c)
	}
	if len(list) == 0 {
		return nil
	}
	sort.SliceStable(list, func(i, j int) bool {
		return list[i].ReadSectors+list[i].WriteSectors > list[j].ReadSectors+list[j].WriteSectors
	})
	return &list[0]
}
