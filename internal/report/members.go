package report

import (
	"slices"

	"github.com/mongobench/mongobench/internal/result"
)

// memberHosts summarises the host of each replica set member the run
// measured, the main member's first (the one the other tables read),
// when it measured more than one: CPU (user plus kernel, per point), iowait,
// disk IOPS and throughput as means over the points that hold a value,
// with the series' source. Nil when the run measured one host or none
// (the members' states, MemberState, are no host's figures).
func memberHosts(m result.Metrics) *table {
	if !slices.ContainsFunc(m.Members, func(s result.Series) bool { return s.Name != result.MemberState }) {
		return nil
	}
	type host struct {
		member, role, source string
		series               []result.Series
	}
	var hosts []*host
	add := func(s result.Series) {
		for _, h := range hosts {
			if h.member == s.Member {
				h.series = append(h.series, s)
				return
			}
		}
		hosts = append(hosts, &host{member: s.Member, role: s.Role, source: s.Source, series: []result.Series{s}})
	}
	for _, s := range append(append([]result.Series(nil), m.Measurements...), m.DiskMetrics...) {
		if s.Member != "" {
			add(s)
		}
	}
	for _, s := range m.Members {
		if s.Name != result.MemberState {
			add(s)
		}
	}
	t := newTable("member", "role", "source", ">CPU % (user+kernel)", ">iowait %", ">disk IOPS", ">disk write MB/s", ">disk read MB/s", ">samples")
	for _, h := range hosts {
		get := func(name string) *result.Series {
			for i := range h.series {
				if h.series[i].Name == name {
					return &h.series[i]
				}
			}
			return nil
		}
		user, kernel := get(result.CPUUser), get(result.CPUKernel)
		var cpu []float64
		samples := 0
		if user != nil {
			samples = len(user.DataPoints)
			if kernel != nil {
				for i, p := range user.DataPoints {
					if i < len(kernel.DataPoints) && p.Value != nil && kernel.DataPoints[i].Value != nil {
						cpu = append(cpu, *p.Value+*kernel.DataPoints[i].Value)
					}
				}
			}
		}
		mb := func(name string) *float64 {
			if v := seriesMean(get(name)); v != nil {
				return result.F(*v / (1 << 20))
			}
			return nil
		}
		t.Add(h.member, h.role, h.source, mdCells.Num(mean(cpu)), mdCells.Num(seriesMean(get(result.CPUIOWait))),
			mdCells.Num(seriesMean(get(result.DiskIOPS))), mdCells.Num(mb(result.DiskWriteBytes)), mdCells.Num(mb(result.DiskReadBytes)),
			count(int64(len(cpu)))+"/"+count(int64(samples)))
	}
	return t
}

// seriesMean is the mean of a series' values, or nil when it has none.
func seriesMean(s *result.Series) *float64 {
	if s == nil {
		return nil
	}
	var vs []float64
	for _, p := range s.DataPoints {
		if p.Value != nil {
			vs = append(vs, *p.Value)
		}
	}
	return mean(vs)
}
