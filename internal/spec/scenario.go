package spec

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mongobench/mongobench/internal/threshold"
)

// Defaults for settings a scenario leaves out.
const (
	DefaultDatabase      = "mongobench_data"
	DefaultClosedThreads = 8                          // workers in a closed loop
	DefaultOpenThreads   = 64                         // operations in flight in an open loop
	DefaultDuration      = Duration(30 * time.Second) // when neither duration nor ops is given
	DefaultInterval      = Duration(time.Second)      // reporting interval
	DefaultMaxLag        = Duration(10 * time.Second) // open loop: later operations are dropped
	DefaultSeed          = 1
	ArrivalConstant      = "constant" // open loop: operations evenly spaced at the rate
	ArrivalPoisson       = "poisson"  // open loop: exponential gaps averaging the rate
	MinInterval          = Duration(100 * time.Millisecond)
	MaxInterval          = Duration(time.Hour)
)

// Scenario is what one benchmark run does: what to run, at which rate, for
// how long, and how to label the result. Where it runs and where its
// result goes are not part of it (a scenario file's Where). Parse reads it
// from a file; the run command also builds it from flags (SetFlag,
// SetParam) and checks it with Validate.
type Scenario struct {
	Name     string   // test name; defaults to the workload name
	Workload string   // required; a workload of the registry
	Database string   // database for the workload's data; default mongobench_data
	Rate     Rate     // target rate (open loop); 0 means closed loop
	Threads  int      // closed loop: workers (default 8); open loop: max operations in flight (default 64)
	Duration Duration // measured phase length; 0 with Ops set means "until Ops are done"
	Ops      int64    // measured operation count; 0 means no limit
	Warmup   Duration // discarded phase before the measured one
	Interval Duration // reporting interval; default 1s, between 100ms and 1h
	MaxLag   Duration // open loop: an operation later than this is dropped; default 10s
	Arrival  string   // open loop: "constant" (default) or "poisson" arrivals at Rate
	// Stages, when given, shape the open-loop schedule (from the start of
	// the warm-up); Rate is then their mean over the measured phase.
	Stages     []Stage
	Seed       int64    // random seed; default 1
	Label      string   // free text, such as the machine type
	Tags       []string // free tags for finding results later
	Repetition int      // repetition number within a series
	Params     Params   // workload parameters, defaults filled in
	// Thresholds are judged on the run's result and stored with it; a
	// failed one makes the run's verdict fail (see package threshold).
	Thresholds []threshold.Threshold
	// StudyThresholds are the thresholds of the study the run belongs to
	// (a sweep's criteria, an SLA): judged on the run's result with its
	// own thresholds and stored with it (testResults.bounds), they place
	// the run in its study without failing the run's own verdict.
	StudyThresholds []threshold.Threshold

	src *origin // where each setting came from, for error messages
}

// origin records where a scenario's settings came from: a file (with
// lines), flags, or defaults.
type origin struct {
	file string               // scenario file name; empty when built from flags
	top  int                  // line of the file's top-level mapping
	keys map[string]*keyState // by key path, such as "rate" or "params.records"
}

type keyState struct {
	line  int  // line of the value in the file; 0 if it did not come from the file
	given bool // set in the file or by a flag
	flag  bool // set by a flag
	bad   bool // given but unreadable, and reported already
	auto  any  // the default last filled in, if any
}

// Clone returns a deep copy of the scenario, for variants such as the
// steps of a rate sweep; changing one does not change the other.
func (s *Scenario) Clone() *Scenario {
	c := *s
	c.Tags = slices.Clone(s.Tags)
	c.Thresholds = slices.Clone(s.Thresholds)
	c.StudyThresholds = slices.Clone(s.StudyThresholds)
	c.Params = maps.Clone(s.Params)
	if s.src != nil {
		src := *s.src
		src.keys = map[string]*keyState{}
		for path, k := range s.src.keys {
			kc := *k
			src.keys[path] = &kc
		}
		c.src = &src
	}
	return &c
}

func (s *Scenario) origin() *origin {
	if s.src == nil {
		s.src = &origin{}
	}
	return s.src
}

func (o *origin) key(path string) *keyState {
	if o.keys == nil {
		o.keys = map[string]*keyState{}
	}
	k, ok := o.keys[path]
	if !ok {
		k = &keyState{}
		o.keys[path] = k
	}
	return k
}

// at returns an error located at the setting named by path: its line in
// the file, or its flag when it did not come from the file.
func (o *origin) at(path string) *Error {
	k := o.key(path)
	switch {
	case k.line > 0:
		return &Error{File: o.file, Line: k.line, Field: path}
	case o.file == "" || k.flag:
		return &Error{Field: flagName(path)}
	}
	return &Error{File: o.file, Line: o.top, Field: path}
}

// fields lists the scenario's keys in file order, with what each accepts.
var fields = []struct{ key, want string }{
	{"name", "a non-empty name"},
	{"workload", ""}, // the registry's workloads
	{"uri", wantURI},
	{"database", "a database name of at most 63 bytes without / \\ . \" $ or spaces, other than mongobench, admin, local and config"},
	{"rate", wantRate},
	{"stages", wantRateStages},
	{"threads", "an integer >= 1, such as 8 or 64"},
	{"duration", "a positive duration such as 60s, 1m30s or 90 (seconds)"},
	{"ops", "a positive integer such as 1000000"},
	{"warmup", "a duration >= 0 such as 10s"},
	{"interval", "a duration between 100ms and 1h, such as 1s"},
	{"maxLag", "a positive duration such as 10s"},
	{"arrival", "constant (evenly spaced) or poisson (exponential gaps, seeded by seed), with a rate"},
	{"hostMetrics", wantHostMetrics},
	{"hostDevice", WantHostDevice},
	{"seed", "an integer such as 42"},
	{"label", "text"},
	{"tags", "a list of non-empty tags such as [baseline, nightly]"},
	{"repetition", "an integer >= 0"},
	{"params", "a mapping of parameter names to values, such as {records: 10000}"},
	{"results", "a mapping with keys uri and file"},
	{"results.uri", wantURI},
	{"results.file", "a file name"},
	{"thresholds", "a list of thresholds such as [\"p99(READ) < 5ms\", \"errors < 0.1%\"]"},
}

const wantURI = "a MongoDB URI such as mongodb://localhost:27017/ or mongodb+srv://cluster.example.net/"

func want(key string) string {
	if w, ok := limitedWants[key]; ok {
		return w
	}
	for _, f := range fields {
		if f.key == key {
			return f.want
		}
	}
	return ""
}

// keysUnder lists the keys of a mapping: the top level ("") or "results".
func keysUnder(parent string) []string {
	var keys []string
	for _, f := range fields {
		p, name, nested := strings.Cut(f.key, ".")
		if !nested && parent == "" {
			keys = append(keys, f.key)
		} else if nested && p == parent {
			keys = append(keys, name)
		}
	}
	return keys
}

// flagName returns the command-line form of a key path: "--max-lag",
// "--results" (the results URI), "--results-file", "-p records".
func flagName(path string) string {
	if name, ok := strings.CutPrefix(path, "params."); ok {
		return "-p " + name
	}
	if path == "results.uri" {
		return "--results"
	}
	var b strings.Builder
	b.WriteString("--")
	for _, r := range path {
		switch {
		case r == '.':
			b.WriteByte('-')
		case unicode.IsUpper(r):
			b.WriteByte('-')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// flagKey maps a flag name (with or without dashes, in flag or key form) to
// its key path; ok is false for flags SetFlag does not handle (those of a
// file's Where among them: the command's own flags set those).
func flagKey(flag string) (string, bool) {
	name := strings.TrimLeft(flag, "-")
	for _, f := range fields {
		if f.key == "params" || f.key == "results" || f.key == "thresholds" || whereKey(f.key) {
			continue
		}
		if name == f.key || "--"+name == flagName(f.key) {
			return f.key, true
		}
	}
	return "", false
}

func flagNames() []string {
	var names []string
	for _, f := range fields {
		if _, ok := flagKey(f.key); ok {
			names = append(names, strings.TrimPrefix(flagName(f.key), "--"))
		}
	}
	return names
}

// SetFlag sets the setting a command-line flag names, such as "rate" or
// "--max-lag", from its text. Tags are comma-separated. Range checks wait
// for Validate, which reports the setting by its flag name.
func (s *Scenario) SetFlag(flag, value string) error {
	key, ok := flagKey(flag)
	if !ok {
		return &Error{Field: "--" + strings.TrimLeft(flag, "-"), Problem: unknownKey("flag", strings.TrimLeft(flag, "-"), flagNames())}
	}
	if err := s.setText(key, value); err != nil {
		e := asError(err)
		e.Field, e.Value, e.Want = flagName(key), value, want(key)
		return e
	}
	*s.origin().key(key) = keyState{given: true, flag: true}
	return nil
}

// Given reports whether the setting a flag names, such as "rate", was set
// by the scenario file or a flag; false for a name that is no setting.
func (s *Scenario) Given(flag string) bool {
	key, ok := flagKey(flag)
	if !ok || s.src == nil {
		return false
	}
	k, ok := s.src.keys[key]
	return ok && k.given
}

// AddThreshold adds a threshold from its expression, as --threshold
// does: to those of the scenario file, if any.
func (s *Scenario) AddThreshold(expr string) error {
	t, err := threshold.Parse(expr)
	if err != nil {
		return &Error{Field: "--threshold", Problem: err.Error(), Err: err}
	}
	s.Thresholds = append(s.Thresholds, t)
	return nil
}

// SetParam sets a workload parameter from a "-p name=value" assignment for
// the scenario's workload.
func (s *Scenario) SetParam(reg Registry, assignment string) error {
	name, v, err := ParseParam(reg, s.Workload, assignment)
	if err != nil {
		return err
	}
	if s.Params == nil {
		s.Params = Params{}
	}
	s.Params[name] = v
	*s.origin().key("params." + name) = keyState{given: true, flag: true}
	return nil
}

// setText sets the setting named by key from its text form. Errors carry
// the value but not the location.
func (s *Scenario) setText(key, text string) error {
	switch key {
	case "name":
		s.Name = text
	case "workload":
		s.Workload = text
	case "database":
		s.Database = text
	case "label":
		s.Label = text
	case "tags":
		s.Tags = splitTags(text)
	case "rate":
		return set(&s.Rate, text, ParseRate)
	case "stages":
		return set(&s.Stages, text, ParseStages)
	case "duration":
		return set(&s.Duration, text, ParseDuration)
	case "warmup":
		return set(&s.Warmup, text, ParseDuration)
	case "interval":
		return set(&s.Interval, text, ParseDuration)
	case "maxLag":
		return set(&s.MaxLag, text, ParseDuration)
	case "arrival":
		s.Arrival = text
	case "threads":
		return set(&s.Threads, text, atoi[int])
	case "repetition":
		return set(&s.Repetition, text, atoi[int])
	case "ops":
		return set(&s.Ops, text, atoi[int64])
	case "seed":
		return set(&s.Seed, text, atoi[int64])
	}
	return nil
}

func atoi[T int | int64](text string) (T, error) {
	n, ok := parseInt(text)
	if !ok || int64(T(n)) != n {
		return 0, invalid(text, "")
	}
	return T(n), nil
}

func splitTags(text string) []string {
	var tags []string
	for _, t := range strings.Split(text, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

// Validate fills in defaults for settings not given, then checks every
// setting and the workload parameters against the registry. It returns all
// problems found, joined, each located by file line or flag name.
func (s *Scenario) Validate(reg Registry) error {
	s.applyDefaults(reg)
	return joinErrors(s.problems(reg))
}

func (s *Scenario) applyDefaults(reg Registry) {
	o := s.origin()
	fill(o.key("name"), &s.Name, defaultName(s.Workload))
	fill(o.key("database"), &s.Database, DefaultDatabase)
	duration := defaultDuration(s.Ops)
	staged := len(s.Stages) > 0 && !o.key("rate").given
	if staged {
		// The stages decide the duration (what is left of them after the
		// warm-up) and the rate (their mean over the measured phase).
		duration = max(StagesLength(s.Stages)-s.Warmup, 0)
	}
	fill(o.key("duration"), &s.Duration, duration)
	if staged {
		s.Rate = 0
		if r, err := MeanRate(s.Stages, time.Duration(s.Warmup), time.Duration(s.Warmup+s.Duration)); err == nil {
			s.Rate = r
		}
	}
	fill(o.key("threads"), &s.Threads, defaultThreads(s.Rate))
	fill(o.key("interval"), &s.Interval, DefaultInterval)
	fill(o.key("maxLag"), &s.MaxLag, DefaultMaxLag)
	fill(o.key("seed"), &s.Seed, DefaultSeed)
	if specs, ok := paramSpecs(reg, s.Workload); ok {
		s.fillParams(specs)
	}
}

// fill sets a setting to its default unless it was given, or was set in
// code to something other than the default filled in before. Filling in
// again lets defaults follow changes: threads follows rate, duration ops.
func fill[T comparable](k *keyState, field *T, value T) {
	var zero T
	if k.given {
		return
	}
	if prev, ok := k.auto.(T); *field == zero || ok && *field == prev {
		*field = value
		k.auto = value
	}
}

// defaultName is a scenario's test name when it gives none: its
// workload's name, or a workload file's name without its directory (the
// same wherever the run starts from).
func defaultName(workload string) string {
	if IsWorkloadFile(workload) {
		return filepath.Base(workload)
	}
	return workload
}

func defaultThreads(r Rate) int {
	if r > 0 {
		return DefaultOpenThreads
	}
	return DefaultClosedThreads
}

func defaultDuration(ops int64) Duration {
	if ops != 0 {
		return 0
	}
	return DefaultDuration
}

// fillParams drops defaults filled in for another workload and fills in
// those of this one.
func (s *Scenario) fillParams(specs []ParamSpec) {
	o := s.origin()
	if s.Params == nil {
		s.Params = Params{}
	}
	for name, v := range s.Params {
		if k := o.key("params." + name); !k.given && k.auto != nil && v == k.auto {
			delete(s.Params, name)
			k.auto = nil
		}
	}
	for _, p := range specs {
		if _, ok := s.Params[p.Name]; ok {
			continue
		}
		if v, err := p.defaultValue(); err == nil {
			s.Params[p.Name] = v
			o.key("params." + p.Name).auto = v
		}
	}
}

// problems checks every setting, assuming defaults are filled in.
func (s *Scenario) problems(reg Registry) []*Error {
	o := s.origin()
	var errs []*Error
	check := func(key string, ok bool, value string) {
		if !ok && !o.key(key).bad {
			e := o.at(key)
			e.Value, e.Want = value, want(key)
			errs = append(errs, e)
		}
	}
	given := func(key string) bool { return o.key(key).given }
	check("name", s.Name != "" || !given("name"), s.Name)
	check("database", validDatabase(s.Database), s.Database)
	errs = append(errs, s.reservedDatabaseProblem()...)
	check("rate", s.Rate >= 0 && !math.IsInf(float64(s.Rate), 0), s.Rate.String())
	check("threads", s.Threads >= 1, strconv.Itoa(s.Threads))
	check("duration", s.Duration > 0 || s.Duration == 0 && !given("duration"), s.Duration.String())
	check("ops", s.Ops > 0 || s.Ops == 0 && !given("ops"), strconv.FormatInt(s.Ops, 10))
	check("warmup", s.Warmup >= 0, s.Warmup.String())
	check("interval", s.Interval >= MinInterval && s.Interval <= MaxInterval, s.Interval.String())
	check("maxLag", s.MaxLag > 0, s.MaxLag.String())
	if len(s.Stages) > 0 && !o.key("stages").bad {
		problem := func(p string) {
			e := o.at("stages")
			e.Value, e.Problem, e.Want = StagesText(s.Stages), p, want("stages")
			errs = append(errs, e)
		}
		switch {
		case given("rate"):
			problem("and --rate both give the rate: give one")
		case s.Arrival == ArrivalPoisson:
			problem("and Poisson arrivals do not combine: stages are evenly spaced")
		case s.Duration <= 0:
			problem(fmt.Sprintf("end within the %s warm-up: nothing is left to measure", s.Warmup))
		case s.Rate <= 0:
			problem("make no operation due in the measured phase")
		}
	}
	check("arrival", s.Arrival == "" || s.Arrival == ArrivalConstant || s.Arrival == ArrivalPoisson && s.Rate > 0, s.Arrival)
	check("tags", !slices.Contains(s.Tags, ""), strings.Join(s.Tags, ","))
	check("repetition", s.Repetition >= 0, strconv.Itoa(s.Repetition))
	errs = append(errs, s.workloadProblems(reg)...)
	return append(errs, s.limitProblems()...)
}

func (s *Scenario) workloadProblems(reg Registry) []*Error {
	o := s.origin()
	if o.key("workload").bad {
		return nil
	}
	if files, ok := reg.(WorkloadFiles); ok && IsWorkloadFile(s.Workload) {
		if err := files.OpenWorkloadFile(s.Workload); err != nil {
			e := o.at("workload")
			e.Problem = err.Error()
			return []*Error{e}
		}
	}
	specs, ok := paramSpecs(reg, s.Workload)
	if ok {
		return s.paramProblems(specs)
	}
	e := o.at("workload")
	w := workloadError(reg, s.Workload)
	e.Value, e.Want, e.Problem = w.Value, w.Want, w.Problem
	if s.Workload == "" && e.File != "" {
		e.Field, e.Problem = "", `missing key "workload"`
	}
	return []*Error{e}
}

// paramProblems reports unknown parameters and bad values, and brings
// values to their kind's Go type.
func (s *Scenario) paramProblems(specs []ParamSpec) []*Error {
	o := s.origin()
	var errs []*Error
	for _, name := range slices.Sorted(maps.Keys(s.Params)) {
		path := "params." + name
		if o.key(path).bad {
			continue
		}
		p, ok := findParam(specs, name)
		if !ok {
			e := o.at(path)
			e.Field = "params"
			if e.File == "" {
				e.Field = "-p"
			}
			e.Problem = unknownKey(s.Workload+" parameter", name, paramNames(specs))
			errs = append(errs, e)
			continue
		}
		v, bad := p.check(s.Params[name])
		if bad != nil {
			e := o.at(path)
			e.Value, e.Want, e.Problem = bad.Value, bad.Want, bad.Problem
			errs = append(errs, e)
			continue
		}
		s.Params[name] = v
	}
	return errs
}

func validURI(uri string) bool {
	if uri == "" {
		return true
	}
	rest, ok := strings.CutPrefix(uri, "mongodb://")
	if !ok {
		rest, ok = strings.CutPrefix(uri, "mongodb+srv://")
	}
	return ok && rest != "" && !strings.ContainsFunc(uri, unicode.IsSpace)
}

func validDatabase(name string) bool {
	if name == "" || len(name) > 63 || strings.ContainsAny(name, "/\\. \"$\x00") {
		return false
	}
	return true // reserved names are reported on their own (reserved.go)
}
