package telemetry

import (
	"fmt"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

var t0 = time.Date(2024, 11, 22, 10, 0, 0, 0, time.UTC)

func at(secs int) time.Time { return t0.Add(time.Duration(secs) * time.Second) }

// mongodSample is a sample at second i whose counters grow linearly: 100
// writes/s at 0.5 ms each, 50 reads/s at 0.2 ms each.
func mongodSample(i int) Sample {
	n := int64(i)
	doc := map[string]any{
		"opcounters": map[string]any{"insert": 100 * n},
		"opLatencies": map[string]any{
			"writes": map[string]any{"latency": 50000 * n, "ops": 100 * n},
			"reads":  map[string]any{"latency": 10000 * n, "ops": 50 * n},
		},
	}
	return Sample{Time: at(i), Status: Status{Time: at(i), Doc: doc}}
}

// secantusSample reports opcounters only.
func secantusSample(i int) Sample {
	doc := map[string]any{"opcounters": map[string]any{"insert": int64(10 * i)}}
	return Sample{Time: at(i), Status: Status{Time: at(i), Doc: doc}}
}

// withHost adds host readings: 25% user CPU on 2 cores, the process at 10%
// user, 40 IOPS; disk is left out when device is "".
func withHost(s Sample, i int, device string) Sample {
	f := float64(i)
	h := &HostSample{
		Time: s.Time, Cores: 2,
		CPU:  &CPUTimes{User: 0.5 * f, Idle: 1.5 * f},
		Proc: &ProcTimes{User: 0.2 * f},
	}
	if device != "" {
		h.Disk = &DiskCounters{Device: device, ReadIOs: uint64(10 * i), WriteIOs: uint64(30 * i)}
	}
	s.Host = h
	return s
}

func missing(i int) Sample { return Sample{Time: at(i), Status: Status{Time: at(i)}} }

// describe renders a series compactly: "NAME UNITS [v1 v2 nil ...]".
func describe(s result.Series) string {
	out := s.Name + " " + s.Units + " ["
	for i, p := range s.DataPoints {
		if i > 0 {
			out += " "
		}
		if p.Value == nil {
			out += "nil"
		} else {
			out += fmt.Sprintf("%g", *p.Value)
		}
	}
	return out + "]"
}

func describeAll(m result.Metrics) []string {
	var out []string
	for _, s := range m.Measurements {
		out = append(out, describe(s))
	}
	for _, s := range m.DiskMetrics {
		out = append(out, "disk:"+describe(s))
	}
	return out
}

func TestSeries(t *testing.T) {
	tests := []struct {
		name       string
		samples    []Sample
		start, end time.Time
		want       []string
	}{
		{
			"mongod without host", []Sample{mongodSample(0), mongodSample(1), mongodSample(2)}, at(0), at(2),
			[]string{
				"OP_EXECUTION_TIME_WRITES MILLISECONDS [0.5 0.5]",
				"OP_EXECUTION_TIME_READS MILLISECONDS [0.2 0.2]",
			},
		},
		{
			"secantus without host: everything omitted",
			[]Sample{secantusSample(0), secantusSample(1), secantusSample(2)}, at(0), at(2), nil,
		},
		{
			"secantus on this host, data on a block device",
			[]Sample{withHost(secantusSample(0), 0, "vda"), withHost(secantusSample(1), 1, "vda")}, at(0), at(1),
			[]string{
				"SYSTEM_NORMALIZED_CPU_USER PERCENT [25]",
				"SYSTEM_NORMALIZED_CPU_KERNEL PERCENT [0]",
				"SYSTEM_NORMALIZED_CPU_IOWAIT PERCENT [0]",
				"PROCESS_NORMALIZED_CPU_USER PERCENT [10]",
				"PROCESS_NORMALIZED_CPU_KERNEL PERCENT [0]",
				"disk:DISK_PARTITION_IOPS_TOTAL SCALAR_PER_SECOND [40]",
				"disk:DISK_PARTITION_THROUGHPUT_READ BYTES_PER_SECOND [0]",
				"disk:DISK_PARTITION_THROUGHPUT_WRITE BYTES_PER_SECOND [0]",
			},
		},
		{
			"data directory on overlay: no disk series",
			[]Sample{withHost(secantusSample(0), 0, ""), withHost(secantusSample(1), 1, "")}, at(0), at(1),
			[]string{
				"SYSTEM_NORMALIZED_CPU_USER PERCENT [25]",
				"SYSTEM_NORMALIZED_CPU_KERNEL PERCENT [0]",
				"SYSTEM_NORMALIZED_CPU_IOWAIT PERCENT [0]",
				"PROCESS_NORMALIZED_CPU_USER PERCENT [10]",
				"PROCESS_NORMALIZED_CPU_KERNEL PERCENT [0]",
			},
		},
		{
			"a missing sample nulls both intervals it bounds",
			[]Sample{mongodSample(0), mongodSample(1), missing(2), mongodSample(3), mongodSample(4)}, at(0), at(4),
			[]string{
				"OP_EXECUTION_TIME_WRITES MILLISECONDS [0.5 nil nil 0.5]",
				"OP_EXECUTION_TIME_READS MILLISECONDS [0.2 nil nil 0.2]",
			},
		},
		{
			"only intervals inside [start, end]",
			[]Sample{mongodSample(0), mongodSample(1), mongodSample(2), mongodSample(3)}, at(1), at(2),
			[]string{
				"OP_EXECUTION_TIME_WRITES MILLISECONDS [0.5]",
				"OP_EXECUTION_TIME_READS MILLISECONDS [0.2]",
			},
		},
		{"no samples", nil, at(0), at(1), nil},
	}
	for _, tt := range tests {
		got := describeAll(Series(tt.samples, tt.start, tt.end, time.Second))
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestSeriesShape(t *testing.T) {
	samples := []Sample{mongodSample(2), mongodSample(0), mongodSample(1)} // out of order
	m := Series(samples, at(0), at(2), time.Second)
	s := m.Series(result.OpTimeWrites)
	if s == nil {
		t.Fatalf("got no %s series, want one", result.OpTimeWrites)
	}
	for i, p := range s.DataPoints {
		if !p.Timestamp.Equal(at(i)) {
			t.Errorf("point %d: timestamp %v, want %v (the interval's start)", i, p.Timestamp, at(i))
		}
	}
	empty := Series(nil, at(0), at(1), time.Second)
	if empty.Measurements == nil || empty.DiskMetrics == nil {
		t.Errorf("empty metrics: got nil slices %v, want empty arrays so the stored shape is stable", empty)
	}
}

func TestIntervals(t *testing.T) {
	got := Intervals([]Sample{withHost(secantusSample(0), 0, ""), secantusSample(1), missing(2)})
	if len(got) != 2 {
		t.Fatalf("got %d intervals, want 2", len(got))
	}
	if got[0].Server["insertPerSec"] != 10 || got[0].Host != nil {
		t.Errorf("interval 0: got server %v host %v, want insertPerSec 10 and no host", got[0].Server, got[0].Host)
	}
	if got[1].Server != nil || !got[1].Start.Equal(at(1)) || !got[1].End.Equal(at(2)) {
		t.Errorf("interval 1: got %+v, want no server figures over [1s, 2s]", got[1])
	}
}

func TestWindow(t *testing.T) {
	shift := func(s Sample, d time.Duration) Sample {
		s.Time = s.Time.Add(d)
		s.Status.Time = s.Status.Time.Add(d)
		if s.Host != nil {
			s.Host.Time = s.Host.Time.Add(d)
		}
		return s
	}
	off := 300 * time.Millisecond
	samples := []Sample{
		shift(withHost(mongodSample(0), 0, "vda"), off),
		shift(withHost(mongodSample(1), 1, "vda"), off),
		shift(missing(2), off),
		shift(withHost(mongodSample(3), 3, "vda"), off),
		shift(withHost(mongodSample(6), 6, "vda"), off),
	}
	tests := []struct {
		name                 string
		from, to             time.Time
		wantWrites, wantUser float64
		wantServer, wantHost bool
	}{
		{"samples 0.3 s after each bound", at(0), at(1), 0.5, 25, true, true},
		{"missing sample at the end bound", at(1), at(2), 0, 0, false, false},
		{"no sample near either bound", at(4), at(5), 0, 0, false, false},
		{"wide window", at(0), at(6), 0.5, 25, true, true},
	}
	for _, tt := range tests {
		server, host := Window(samples, tt.from, tt.to)
		if (server != nil) != tt.wantServer || (host != nil) != tt.wantHost {
			t.Errorf("%s: got server %v host %v, want server %v host %v", tt.name, server, host, tt.wantServer, tt.wantHost)
			continue
		}
		if tt.wantServer && server[KeyWriteLatency] != tt.wantWrites {
			t.Errorf("%s: %s = %v, want %v", tt.name, KeyWriteLatency, server[KeyWriteLatency], tt.wantWrites)
		}
		if tt.wantHost && host[KeyCPUUser] != tt.wantUser {
			t.Errorf("%s: %s = %v, want %v", tt.name, KeyCPUUser, host[KeyCPUUser], tt.wantUser)
		}
	}
}

// mark is a host-only boundary sample at second i (see Sampler.Mark).
func mark(i int) Sample {
	s := withHost(Sample{Time: at(i)}, i, "")
	s.Mark = true
	return s
}

// TestSeriesWithMarks: boundary marks give a phase shorter than the
// sampling interval host points of its own, and the server's series pass
// over them instead of losing the intervals around them.
func TestSeriesWithMarks(t *testing.T) {
	short := []Sample{withHost(mongodSample(0), 0, ""), mark(2), mark(3), withHost(mongodSample(10), 10, "")}
	m := Series(short, at(2), at(3), time.Second)
	cpu := map[string]string{}
	for _, s := range m.Measurements {
		cpu[s.Name] = describe(s)
	}
	if got, want := cpu[result.CPUUser], result.CPUUser+" PERCENT [25]"; got != want {
		t.Errorf("short phase: got %q want %q", got, want)
	}
	long := []Sample{withHost(mongodSample(0), 0, ""), mark(0), withHost(mongodSample(1), 1, ""), withHost(mongodSample(2), 2, ""), mark(2)}
	for _, s := range Series(long, at(0), at(2), time.Second).Measurements {
		switch s.Name {
		case result.OpTimeWrites:
			if got, want := describe(s), result.OpTimeWrites+" MILLISECONDS [0.5 0.5]"; got != want {
				t.Errorf("server series: got %q want %q (marks passed over)", got, want)
			}
		case result.CPUUser:
			if n := len(s.DataPoints); n < 2 {
				t.Errorf("host series: %d points, want one per interval between samples", n)
			}
		}
	}
}
