package live

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mongobench/mongobench/internal/engine"
)

// tallied publishes the current run's cumulative figures, read from its
// tally at each scrape: the same figures, by the same code, as the
// stored result's, so the two never disagree.
type tallied struct {
	p                                               *Publisher
	ops, parts, errs, completed, late, dropped, cpu *prometheus.Desc
	intervals, achieved                             *prometheus.Desc
}

func newTallied(p *Publisher) *tallied {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName("mongobench", "", name), help, labels, nil)
	}
	withClass := append(append([]string{}, opLabels...), "class")
	return &tallied{
		p:         p,
		ops:       desc("operations_total", "Successful operations of the measured phase so far, parts of other operations included (as ops[].count).", opLabels...),
		parts:     desc("parts_total", "Successful operations so far that were parts of other operations (YCSB's measurerwparts; as ops[].parts.count).", opLabels...),
		errs:      desc("errors_total", "Failed operations of the measured phase so far, by error class.", withClass...),
		completed: desc("completed_total", "Operations completed (successes and errors) in the measured phase so far, parts of operations left out (as testResults.nOps).", runLabels...),
		late:      desc("late_total", "Operations sent more than 10 ms after their intended start so far (open loop).", runLabels...),
		dropped:   desc("dropped_total", "Operations dropped by the schedule so far (open loop).", runLabels...),
		cpu:       desc("client_cpu_seconds_total", "CPU time (user and system) of this process in the measured phase so far.", runLabels...),
		intervals: desc("intervals_total", "Intervals of the measured phase closed so far.", runLabels...),
		achieved:  desc("run_achieved_ops_per_second", "Completed operations per second of the measured phase so far, parts of operations left out; once the run has ended, the stored schedule.achievedRate.", runLabels...),
	}
}

// Describe sends every description.
func (c *tallied) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.ops, c.parts, c.errs, c.completed, c.late, c.dropped, c.cpu, c.intervals, c.achieved} {
		ch <- d
	}
}

// Collect sends the current run's figures, none before its first
// interval.
func (c *tallied) Collect(ch chan<- prometheus.Metric) {
	c.p.mu.Lock()
	run, current := c.p.run, c.p.current
	c.p.mu.Unlock()
	if current == nil || run.Tally == nil {
		return
	}
	v := run.Tally.View()
	if v.Intervals == 0 {
		return
	}
	counter := func(d *prometheus.Desc, x float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, x, append([]string{run.Test, run.Label, run.ID}, labels...)...)
	}
	for _, op := range v.Ops {
		counter(c.ops, float64(op.Count), op.Name)
		counter(c.parts, float64(op.Parts), op.Name)
		for class, n := range op.Errors {
			counter(c.errs, float64(n), op.Name, engine.Class(class).String())
		}
	}
	counter(c.completed, float64(v.Completed()))
	counter(c.late, float64(v.Late))
	counter(c.dropped, float64(v.Dropped))
	counter(c.cpu, v.CPU.Seconds())
	counter(c.intervals, float64(v.Intervals))
	ch <- prometheus.MustNewConstMetric(c.achieved, prometheus.GaugeValue, v.AchievedRate(), run.Test, run.Label, run.ID)
}
