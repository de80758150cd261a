package plan

import (
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/threshold"
)

// RunOf reads a Run from a stored result document: the achieved rate of
// its measured phase, each operation type's latency with its encoded
// histogram, the server process's mean CPU (user + kernel) when the host
// was sampled, its completed and failed operations, and the thresholds
// stored with it that failed. A server on the tool's host has its CPU as a
// share of the host's CPUs, which the tool counted (generator.cores).
func RunOf(d *result.Doc) Run {
	r := Run{RunID: d.RunID, Throughput: d.Schedule.AchievedRate, Ops: map[string]result.Dist{}, Counts: map[string]OpCount{}}
	for _, v := range threshold.Failed(d.Thresholds) {
		r.FailedThresholds = append(r.FailedThresholds, v.Expression+" ("+threshold.Measured(v)+")")
	}
	if v := result.VariantOf(d); v.Plan != nil && v.Stage != nil {
		r.Stage = *v.Stage
	}
	if d.Target.SameHost {
		r.OnHost, r.HostCores = true, d.Generator.Cores
	}
	if d.Diagnosis != nil {
		r.Limited = d.Diagnosis.Line
	}
	for _, op := range d.Ops {
		r.Ops[op.Name] = op.Latency
		done, failed := op.Whole()
		r.Counts[op.Name] = OpCount{done, failed}
		r.Completed += done
		r.Failed += failed
	}
	user := seriesMean(d.Metrics.Measurements, result.ProcessCPUUser)
	kernel := seriesMean(d.Metrics.Measurements, result.ProcessCPUKernel)
	if user == nil || kernel == nil {
		// A remote host read through its node exporter has no
		// per-process figures: its host CPU stands for the server's, the
		// server's host being taken to run the server alone.
		if remoteHostCPU(d.Metrics.Measurements) {
			user = seriesMean(d.Metrics.Measurements, result.CPUUser)
			kernel = seriesMean(d.Metrics.Measurements, result.CPUKernel)
			r.CPUFromHost = true
		}
	}
	if user != nil && kernel != nil {
		cpu := *user + *kernel
		r.ServerCPU = &cpu
	}
	return r
}

// remoteHostCPU reports whether the host CPU series came from the server's
// host's node exporter.
func remoteHostCPU(ss []result.Series) bool {
	for _, s := range ss {
		if s.Name == result.CPUUser {
			return s.Source == "node_exporter"
		}
	}
	return false
}

// seriesMean is the mean of a series' samples; nil when it has none.
func seriesMean(ss []result.Series, name string) *float64 {
	for _, s := range ss {
		if s.Name != name {
			continue
		}
		var sum float64
		var n int
		for _, p := range s.DataPoints {
			if p.Value != nil {
				sum += *p.Value
				n++
			}
		}
		if n == 0 {
			return nil
		}
		m := sum / float64(n)
		return &m
	}
	return nil
}
