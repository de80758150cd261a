package ycsbprops

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// Command is the mongobench command YCSB properties configure; what a
// client property means depends on it.
type Command string

// The commands that read YCSB properties.
const (
	Run       Command = "run"       // YCSB's run (-t) phase, one measured run
	Load      Command = "load"      // YCSB's load phase, measured
	Sweep     Command = "sweep"     // the run phase at a series of rates
	Calibrate Command = "calibrate" // the run phase at more and more threads
)

// Option is a connection string option that a property adds to the
// target's URI, unless the URI sets it already (as YCSB's MongoDB binding
// does).
type Option struct{ Name, Value string }

// Settings are what YCSB properties ask for, in mongobench's terms. A
// zero field was not set by any property.
type Settings struct {
	// Workload is the YCSB workload the properties describe, ycsb-a …
	// ycsb-f: the one the workload flag names, else the preset closest to
	// the properties (the fewest parameters differ from it).
	Workload string
	// Params are the workload's parameters as name=value assignments: the
	// core properties whose value differs from the preset's, then
	// mongobench's own parameters of the YCSB workloads.
	Params   []string
	Threads  int           // threadcount (run, sweep)
	Rate     spec.Rate     // target (run)
	Ops      int64         // operationcount (run)
	Duration spec.Duration // maxexecutiontime (run, sweep, calibrate)
	URI      string        // mongodb.url
	Label    string        // label (YCSB's -l)
	// Options are added to the target's URI: mongodb.writeConcern,
	// mongodb.readPreference, mongodb.maxconnections.
	Options []Option
}

// ownParams are mongobench's own parameters of the YCSB workloads,
// accepted under their names; YCSB's MongoDB binding's batchsize is the
// load phase's batch size too.
var ownParams = map[string]string{
	"batchsize": "batchSize", "batchSize": "batchSize", "loaders": "loaders", "client": "client", "load": "load",
}

// workloadClasses are the names of YCSB's CoreWorkload class.
var workloadClasses = []string{"site.ycsb.workloads.CoreWorkload", "com.yahoo.ycsb.workloads.CoreWorkload"}

// dbNames are YCSB's MongoDB bindings: the class names -db takes and the
// names bin/ycsb maps to them.
var dbNames = []string{
	"site.ycsb.db.MongoDbClient", "com.yahoo.ycsb.db.MongoDbClient",
	"site.ycsb.db.AsyncMongoDbClient", "com.yahoo.ycsb.db.AsyncMongoDbClient",
	"mongodb", "mongodb-async",
}

// refused are the properties that cannot apply, with the reason.
var refused = map[string]string{
	"exporter":                               "results are stored as documents (--results, --results-file) and printed as a summary or with --json",
	"exportfile":                             "results are stored as documents (--results, --results-file) and printed as a summary or with --json",
	"status.interval":                        "the interval of the status line is mongobench's --status-interval",
	"hdrhistogram.percentiles":               "the summary shows fixed percentiles; any percentile can be recomputed from the HDR histograms stored with the result (docs/results.md)",
	"hdrhistogram.output.path":               "the full HDR histograms are stored, encoded, in the result document",
	"histogram.buckets":                      "mongobench records HDR histograms only (measurementtype=hdrhistogram)",
	"timeseries.granularity":                 "mongobench records HDR histograms only; per-interval figures are stored for every --interval",
	"measurement.raw.output_file":            "mongobench records HDR histograms only, not every latency",
	"measurement.raw.no_summary":             "mongobench records HDR histograms only, not every latency",
	"fieldlengthhistogram":                   "fieldlengthdistribution=histogram is not supported (constant, uniform, zipfian are)",
	"exponential.percentile":                 "requestdistribution=exponential is not supported",
	"exponential.frac":                       "requestdistribution=exponential is not supported",
	"core_workload_insertion_retry_interval": "failed inserts are counted by error class, never retried",
	"mongodb.threadsAllowedToBlockForConnectionMultiplier": "the Go driver has no wait-queue multiple; --threads bounds the operations in flight",
	"reportlatencyforeacherror":                            "failed operations are counted by error class, and their latency is never recorded",
	"latencytrackederrors":                                 "failed operations are counted by error class, and their latency is never recorded",
}

// refusedUnless are properties accepted only at the value that changes
// nothing, with the reason any other is refused.
var refusedUnless = map[string]struct{ ok, why string }{
	"mongodb.upsert":                      {"false", "inserts are inserts: mongobench empties the table before it loads"},
	"dataintegrity":                       {"false", "reads are not checked against the written values"},
	"measurement.trackjvm":                {"false", "there is no JVM; the client's own CPU is recorded instead"},
	"hdrhistogram.fileoutput":             {"false", "the full HDR histograms are stored, encoded, in the result document"},
	"core_workload_insertion_retry_limit": {"0", "failed inserts are counted by error class, never retried"},
}

// clientProps are the client properties Resolve maps, and how.
var clientProps = map[string]func(r *resolver, p Property, v string) *spec.Error{
	"threadcount":            (*resolver).threadcount,
	"target":                 (*resolver).target,
	"maxexecutiontime":       (*resolver).maxexecutiontime,
	"mongodb.url":            (*resolver).url,
	"label":                  func(r *resolver, _ Property, v string) *spec.Error { r.s.Label = v; return nil },
	"status":                 func(*resolver, Property, string) *spec.Error { return nil }, // progress is always shown
	"dotransactions":         (*resolver).dotransactions,
	"db":                     (*resolver).db,
	"workload":               (*resolver).workload,
	"measurementtype":        (*resolver).measurementtype,
	"measurement.interval":   (*resolver).measurementInterval,
	"mongodb.writeConcern":   (*resolver).writeConcern,
	"mongodb.readPreference": (*resolver).readPreference,
	"mongodb.maxconnections": (*resolver).maxconnections,
}

// Names returns every property name Resolve knows, accepted or refused,
// sorted.
func Names() []string {
	names := ycsb.Names()
	for _, m := range []map[string]string{ownParams, refused} {
		for n := range m {
			names = append(names, n)
		}
	}
	for n := range refusedUnless {
		names = append(names, n)
	}
	for n := range clientProps {
		names = append(names, n)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// maxErrors bounds the problems one Resolve reports; the rest are
// counted ("and N more problems"), so that a file of two million unknown
// keys says twenty, not two million.
const maxErrors = 20

// resolver holds one Resolve's state.
type resolver struct {
	cmd       Command
	s         Settings
	threadsAt Property // the threadcount property, for Load's loaders
	errs      []error
	more      int // problems past maxErrors, counted only
}

func (r *resolver) fail(e *spec.Error) {
	switch {
	case e == nil:
	case len(r.errs) < maxErrors:
		r.errs = append(r.errs, e)
	default:
		r.more++
	}
}

// full reports whether further problems are only counted.
func (r *resolver) full() bool { return len(r.errs) >= maxErrors }

// err joins the problems reported, and says how many more there were.
func (r *resolver) err() error {
	errs := r.errs
	if r.more > 0 {
		errs = append(errs[:len(errs):len(errs)], fmt.Errorf("and %d more problems", r.more))
	}
	return errors.Join(errs...)
}

// failed reports whether any problem was found.
func (r *resolver) failed() bool { return len(r.errs) > 0 }

// Resolve maps YCSB properties, in the order YCSB reads them (property
// files in order, then -p; a later value of a name replaces an earlier
// one), to mongobench's settings for cmd. workload is the workload the
// command's flag names ("" when none): its preset is the starting point,
// as the properties' is CoreWorkload's defaults otherwise. reg declares
// the workload's parameters: the workloads ycsb-a … ycsb-f for Run,
// Sweep and Calibrate, ycsb-a-load … ycsb-f-load for Load. Unknown
// properties, properties that cannot apply and bad values are errors,
// each naming the property's file and line (or its -p), all of them
// joined.
func Resolve(cmd Command, props []Property, workload string, reg spec.Registry) (Settings, error) {
	r := &resolver{cmd: cmd}
	core := map[string]Property{}
	var own []Property
	for _, p := range effective(props) {
		v := strings.TrimSpace(p.Value)
		if slices.Contains(ycsb.Names(), p.Name) {
			core[p.Name] = p
			if p.Name == "operationcount" && cmd == Run {
				r.fail(r.operationcount(p, v))
			}
			continue
		}
		if _, ok := ownParams[p.Name]; ok {
			own = append(own, p)
			continue
		}
		if handle, ok := clientProps[p.Name]; ok {
			r.fail(handle(r, p, v))
			continue
		}
		r.fail(refusal(p, v, !r.full()))
	}
	preset := r.preset(workload)
	if preset == "" || r.failed() {
		return Settings{}, r.err()
	}
	r.params(preset, core, own, reg)
	if r.failed() {
		return Settings{}, r.err()
	}
	return r.s, nil
}

// effective returns the properties that count: the last of each name, in
// the order names first appear.
func effective(props []Property) []Property {
	last := map[string]int{}
	var order []string
	for i, p := range props {
		if _, ok := last[p.Name]; !ok {
			order = append(order, p.Name)
		}
		last[p.Name] = i
	}
	out := make([]Property, len(order))
	for i, n := range order {
		out[i] = props[last[n]]
	}
	return out
}

// refusal explains why a property cannot apply, or that it is unknown.
func refusal(p Property, v string, hint bool) *spec.Error {
	e := p.at()
	if why, ok := refused[p.Name]; ok {
		e.Problem = "not supported: " + why
		return e
	}
	if strings.HasPrefix(p.Name, "htrace.") {
		e.Problem = "not supported: mongobench has no HTrace tracing"
		return e
	}
	if u, ok := refusedUnless[p.Name]; ok {
		if strings.EqualFold(v, u.ok) {
			return nil
		}
		e.Problem = fmt.Sprintf("%q is not supported: %s", result.Cut(v), u.why)
		e.Want = u.ok
		return e
	}
	e.Field, e.Value = "", ""
	if p.File == "" {
		e.Field = "-p"
	}
	mean := ""
	if hint && len(p.Name) <= result.MaxEcho {
		if m := spec.Closest(p.Name, Names(), 4); m != "" {
			mean = fmt.Sprintf(" (did you mean %q?)", m)
		}
	}
	e.Problem = fmt.Sprintf("unknown YCSB property %q%s; docs/ycsb.md lists the properties mongobench reads", result.Cut(p.Name), mean)
	return e
}

// preset returns the preset letter the workload flag names, or "" after
// reporting a bad one; with no flag it returns "?" (chosen by params).
func (r *resolver) preset(workload string) string {
	if workload == "" {
		return "?"
	}
	letter, ok := strings.CutPrefix(workload, "ycsb-")
	if _, known := ycsb.Preset(letter); !ok || !known || len(letter) != 1 {
		r.fail(&spec.Error{Field: "--workload", Value: workload,
			Want: "one of ycsb-a … ycsb-f: YCSB property files (-P) describe YCSB's core workloads"})
		return ""
	}
	return letter
}

// params chooses the preset (when the flag did not) and sets the
// parameters: the core properties that differ from it, then mongobench's
// own parameters.
func (r *resolver) params(preset string, core map[string]Property, own []Property, reg spec.Registry) {
	base := ycsb.Defaults()
	if preset != "?" {
		base, _ = ycsb.Preset(preset)
	}
	eff := base
	for _, name := range ycsb.Names() {
		p, ok := core[name]
		if !ok {
			continue
		}
		if err := eff.Set(name, strings.TrimSpace(p.Value)); err != nil {
			e := p.at()
			e.Problem = strings.TrimPrefix(err.Error(), "property "+name+": ")
			r.fail(e)
		}
	}
	if len(r.errs) > 0 {
		return
	}
	if err := eff.Validate(); err != nil {
		r.fail(&spec.Error{Field: "YCSB properties", Problem: err.Error()})
		return
	}
	if preset == "?" {
		preset = closestPreset(eff)
	}
	r.s.Workload = "ycsb-" + preset
	name := r.s.Workload
	if r.cmd == Load {
		name += "-load"
	}
	set := func(p Property, param, value string) {
		a := param + "=" + value
		if _, _, err := spec.ParseParam(reg, name, a); err != nil {
			e := p.at()
			var se *spec.Error
			if errors.As(err, &se) {
				e.Want, e.Problem = se.Want, se.Problem
			} else {
				e.Problem = err.Error()
			}
			r.fail(e)
			return
		}
		r.s.Params = append(r.s.Params, a)
	}
	p, _ := ycsb.Preset(preset)
	for _, n := range differing(p, eff) {
		v, _ := eff.Get(n)
		prop, ok := core[n]
		if !ok {
			prop = Property{Name: n, Value: v, File: "CoreWorkload's default"}
		}
		set(prop, n, v)
	}
	for _, o := range own {
		set(o, ownParams[o.Name], strings.TrimSpace(o.Value))
	}
	givenLoaders := slices.ContainsFunc(own, func(p Property) bool { return p.Name == "loaders" })
	if r.cmd == Load && r.s.Threads > 0 && !givenLoaders {
		set(Property{Name: "threadcount", Value: strconv.Itoa(r.s.Threads), File: r.threadsAt.File, Line: r.threadsAt.Line},
			"loaders", strconv.Itoa(r.s.Threads))
	}
	if r.cmd == Load {
		r.s.Threads = 0
	}
}

// differing returns the core properties whose values differ between a
// and b, in Names order.
func differing(a, b ycsb.Properties) []string {
	var names []string
	for _, n := range ycsb.Names() {
		va, _ := a.Get(n)
		vb, _ := b.Get(n)
		if va != vb {
			names = append(names, n)
		}
	}
	return names
}

// closestPreset returns the preset from which the fewest properties of p
// differ; the first in a … f on a tie.
func closestPreset(p ycsb.Properties) string {
	best, fewest := "", -1
	for _, name := range ycsb.PresetNames() {
		q, _ := ycsb.Preset(name)
		if n := len(differing(q, p)); fewest < 0 || n < fewest {
			best, fewest = name, n
		}
	}
	return best
}

// integer reads YCSB's integer properties: a whole number in [lo, hi].
func integer(p Property, v string, lo, hi int64, want string) (int64, *spec.Error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		e := p.at()
		e.Value, e.Want = v, want
		return 0, e
	}
	return n, nil
}

func (r *resolver) threadcount(p Property, v string) *spec.Error {
	if r.cmd == Calibrate {
		e := p.at()
		e.Problem = "not supported by calibrate, which varies the threads: --start, --factor, --max"
		return e
	}
	n, e := integer(p, v, 1, spec.MaxThreads, fmt.Sprintf("an integer between 1 and %d", spec.MaxThreads))
	if e == nil {
		r.s.Threads, r.threadsAt = int(n), p
	}
	return e
}

func (r *resolver) target(p Property, v string) *spec.Error {
	n, e := integer(p, v, 0, int64(spec.MaxRate), fmt.Sprintf("operations per second, an integer between 0 (no target) and %d", int64(spec.MaxRate)))
	if e != nil || n == 0 {
		return e
	}
	why := map[Command]string{
		Sweep:     "sweep sets the rate of each step (--rate)",
		Calibrate: "calibrate runs closed loop",
		Load:      "'mongobench load' inserts as fast as its loaders go",
	}[r.cmd]
	if why != "" {
		e = p.at()
		e.Problem = "not supported: " + why + " (-p target=0 overrides a file's target)"
		return e
	}
	r.s.Rate = spec.Rate(n)
	return nil
}

func (r *resolver) operationcount(p Property, v string) *spec.Error {
	n, e := integer(p, v, 0, spec.MaxOps, "an integer between 0 (no limit) and 1e12")
	if e == nil {
		r.s.Ops = n
	}
	return e
}

func (r *resolver) maxexecutiontime(p Property, v string) *spec.Error {
	maxSec := int64(time.Duration(spec.MaxDuration) / time.Second)
	n, e := integer(p, v, 0, maxSec, fmt.Sprintf("seconds, an integer between 0 (no limit) and %d", maxSec))
	if e != nil || n == 0 {
		return e
	}
	if r.cmd == Load {
		e = p.at()
		e.Problem = "not supported by 'mongobench load', which loads every record of the insert range; bound it with insertcount"
		return e
	}
	r.s.Duration = spec.Duration(time.Duration(n) * time.Second)
	return nil
}

func (r *resolver) url(p Property, v string) *spec.Error {
	if !strings.HasPrefix(v, "mongodb://") && !strings.HasPrefix(v, "mongodb+srv://") {
		e := p.at()
		e.Value, e.Want = redactedValue(v), "a MongoDB URI such as mongodb://localhost:27017/"
		return e
	}
	r.s.URI = v
	return nil
}

// redactedValue never repeats what may be a connection string with a
// password: only what comes before the first @ would, so it is cut.
func redactedValue(v string) string {
	if at := strings.LastIndex(v, "@"); at >= 0 {
		return "…" + v[at:]
	}
	return v
}

func (r *resolver) dotransactions(p Property, v string) *spec.Error {
	run := strings.EqualFold(v, "true") // Boolean.valueOf
	if run == (r.cmd != Load) {
		return nil
	}
	e := p.at()
	if run {
		e.Problem = "the transaction phase is 'mongobench run' (or sweep, calibrate)"
	} else {
		e.Problem = "the load phase is 'mongobench load'"
	}
	return e
}

func (r *resolver) db(p Property, v string) *spec.Error {
	if slices.Contains(dbNames, v) {
		return nil
	}
	e := p.at()
	e.Problem = fmt.Sprintf("%q is not supported: mongobench benchmarks MongoDB", result.Cut(v))
	e.Want = "YCSB's MongoDB binding, " + strings.Join(dbNames, ", ")
	return e
}

func (r *resolver) workload(p Property, v string) *spec.Error {
	if slices.Contains(workloadClasses, v) {
		return nil
	}
	e := p.at()
	e.Problem = fmt.Sprintf("%q is not supported: mongobench implements YCSB's CoreWorkload (ycsb-a … ycsb-f)", result.Cut(v))
	e.Want = strings.Join(workloadClasses, " or ")
	return e
}

func (r *resolver) measurementtype(p Property, v string) *spec.Error {
	if v == "hdrhistogram" {
		return nil
	}
	e := p.at()
	e.Problem = fmt.Sprintf("%q is not supported: mongobench records HDR histograms (per operation type, per interval and per phase)", result.Cut(v))
	e.Want = "hdrhistogram"
	return e
}

func (r *resolver) measurementInterval(p Property, v string) *spec.Error {
	if slices.Contains([]string{"op", "intended", "both"}, v) {
		return nil // both are always recorded: latency from the intended start, service time from the send
	}
	e := p.at()
	e.Want = "op, intended or both (mongobench records both)"
	return e
}

// writeConcerns map mongodb.writeConcern to URI options as YCSB's
// MongoDB binding does.
var writeConcerns = map[string][]Option{
	"errors_ignored":       {{"w", "0"}},
	"unacknowledged":       {{"w", "0"}},
	"acknowledged":         {{"w", "1"}},
	"journaled":            {{"journal", "true"}},
	"replica_acknowledged": {{"w", "2"}},
	"majority":             {{"w", "majority"}},
}

// readPreferences map mongodb.readPreference to the URI's readPreference.
var readPreferences = map[string]string{
	"primary": "primary", "primary_preferred": "primaryPreferred", "secondary": "secondary",
	"secondary_preferred": "secondaryPreferred", "nearest": "nearest",
}

func (r *resolver) writeConcern(p Property, v string) *spec.Error {
	opts, ok := writeConcerns[strings.ToLower(v)]
	if !ok {
		e := p.at()
		e.Want = "unacknowledged, acknowledged, journaled, replica_acknowledged or majority"
		return e
	}
	r.s.Options = append(r.s.Options, opts...)
	return nil
}

func (r *resolver) readPreference(p Property, v string) *spec.Error {
	pref, ok := readPreferences[strings.ToLower(v)]
	if !ok {
		e := p.at()
		e.Want = "primary, primary_preferred, secondary, secondary_preferred or nearest"
		return e
	}
	r.s.Options = append(r.s.Options, Option{"readPreference", pref})
	return nil
}

func (r *resolver) maxconnections(p Property, v string) *spec.Error {
	n, e := integer(p, v, 0, 1_000_000, "an integer >= 0 (the URI's maxPoolSize; 0 means no limit)")
	if e == nil {
		r.s.Options = append(r.s.Options, Option{"maxPoolSize", strconv.FormatInt(n, 10)})
	}
	return e
}

// WithOptions adds options to a connection string, each unless the
// string sets it already (option names compare case-insensitively).
func WithOptions(uri string, opts []Option) string {
	base, query, hasQuery := strings.Cut(uri, "?")
	have := map[string]bool{}
	for _, kv := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' }) {
		k, _, _ := strings.Cut(kv, "=")
		have[strings.ToLower(k)] = true
	}
	var add []string
	for _, o := range opts {
		if k := strings.ToLower(o.Name); !have[k] {
			have[k] = true
			add = append(add, o.Name+"="+o.Value)
		}
	}
	if len(add) == 0 {
		return uri
	}
	if !hasQuery {
		if _, rest, _ := strings.Cut(base, "://"); !strings.Contains(rest, "/") {
			base += "/"
		}
		return base + "?" + strings.Join(add, "&")
	}
	if query != "" && !strings.HasSuffix(query, "&") {
		query += "&"
	}
	return base + "?" + query + strings.Join(add, "&")
}
