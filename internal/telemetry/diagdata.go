package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
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
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetMaxPoolSize(1).SetAppName("mongobench-ftdc"))
	if err != nil {
		return nil, fmt.Errorf("getDiagnosticData: %w", err)
	}
	d := &DiagnosticData{client: c}
	if _, err := d.ReadContext(ctx); err != nil {
		_ = c.Disconnect(context.Background())
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
	var reply bson.Raw
	err := d.client.Database("admin").RunCommand(ctx, bson.D{{Key: "getDiagnosticData", Value: 1}}).Decode(&reply)
	if err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			return HostSample{}, fmt.Errorf("getDiagnosticData refused (%s): %s", ce.Name, ce.Message)
		}
		return HostSample{}, fmt.Errorf("getDiagnosticData: %w", err)
	}
	data, err := reply.LookupErr("data")
	if err != nil || data.Type != bson.TypeEmbeddedDocument {
		return HostSample{}, errors.New("getDiagnosticData answered without a data document")
	}
	return HostFromDiagnosticData(bson.Raw(data.Value))
}

// HostFromDiagnosticData reads a host sample from one FTDC sample
// document (getDiagnosticData's data, or a sample decoded from an FTDC
// file): its start time, and from systemMetrics (field names of the
// server's ftdc_system_stats_linux.cpp and procparser.cpp) cpu.*_ms and
// num_cpus, the busiest disk of disks.<device> (the physical disks the
// server lists; the one with the most sectors moved since boot stands for
// the data disk) and memory.MemTotal_kb and MemAvailable_kb.
func HostFromDiagnosticData(doc bson.Raw) (HostSample, error) {
	start, err := doc.LookupErr("start")
	if err != nil || start.Type != bson.TypeDateTime {
		return HostSample{}, errors.New("getDiagnosticData: the sample has no start date")
	}
	s := HostSample{Time: start.Time(), Source: SourceFTDC}
	sm, err := doc.LookupErr("systemMetrics")
	if err != nil || sm.Type != bson.TypeEmbeddedDocument {
		return s, errors.New("getDiagnosticData: the sample has no systemMetrics (a mongos without an FTDC directory, or a platform the server does not read)")
	}
	sys := bson.Raw(sm.Value)
	num := func(v bson.RawValue) (float64, bool) {
		switch v.Type {
		case bson.TypeInt32, bson.TypeInt64, bson.TypeDouble:
			f, ok := v.AsFloat64OK()
			return f, ok
		}
		return 0, false
	}
	if cpu, err := sys.LookupErr("cpu"); err == nil && cpu.Type == bson.TypeEmbeddedDocument {
		c := bson.Raw(cpu.Value)
		ms := func(k string) (float64, bool) {
			v, err := c.LookupErr(k)
			if err != nil {
				return 0, false
			}
			f, ok := num(v)
			return f / 1000, ok
		}
		var t CPUTimes
		ok := true
		for _, f := range []struct {
			key string
			dst *float64
		}{{"user_ms", &t.User}, {"nice_ms", &t.Nice}, {"system_ms", &t.System}, {"idle_ms", &t.Idle},
			{"iowait_ms", &t.IOWait}, {"irq_ms", &t.IRQ}, {"softirq_ms", &t.SoftIRQ}, {"steal_ms", &t.Steal}} {
			v, has := ms(f.key)
			ok = ok && has
			*f.dst = v
		}
		if ok {
			s.CPU = &t
		}
		if v, err := c.LookupErr("num_cpus"); err == nil {
			if n, ok := num(v); ok {
				s.Cores = int(n)
			}
		}
	}
	if disks, err := sys.LookupErr("disks"); err == nil && disks.Type == bson.TypeEmbeddedDocument {
		s.Disk = busiestDisk(bson.Raw(disks.Value), num)
	}
	if mem, err := sys.LookupErr("memory"); err == nil && mem.Type == bson.TypeEmbeddedDocument {
		m := bson.Raw(mem.Value)
		tv, err1 := m.LookupErr("MemTotal_kb")
		av, err2 := m.LookupErr("MemAvailable_kb")
		if t, ok := num(tv); err1 == nil && ok {
			if a, ok := num(av); err2 == nil && ok {
				s.Memory = &Memory{Total: uint64(t) * 1024, Available: uint64(a) * 1024}
			}
		}
	}
	return s, nil
}

// busiestDisk is the disk with the most sectors read and written.
func busiestDisk(disks bson.Raw, num func(bson.RawValue) (float64, bool)) *DiskCounters {
	elems, err := disks.Elements()
	if err != nil {
		return nil
	}
	var list []DiskCounters
	for _, e := range elems {
		v := e.Value()
		if v.Type != bson.TypeEmbeddedDocument {
			continue
		}
		d := bson.Raw(v.Value)
		get := func(k string) (uint64, bool) {
			x, err := d.LookupErr(k)
			if err != nil {
				return 0, false
			}
			f, ok := num(x)
			return uint64(f), ok
		}
		c := DiskCounters{Device: e.Key()}
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
