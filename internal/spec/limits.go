package spec

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/threshold"
)

// Upper bounds on what a scenario may ask for. Each is far above what a
// real cluster test needs and far below what would exhaust the client:
// a typo ("1e12/s", "--threads 1000000", "docSize=16MB records=1e12") is
// refused before anything starts, with the bound and the flag or file line.
const (
	MaxRate       = Rate(10_000_000) // operations per second
	MaxThreads    = 10_000           // workers or operations in flight
	MaxDuration   = Duration(7 * 24 * time.Hour)
	MaxWarmup     = Duration(24 * time.Hour)
	MaxLag        = Duration(time.Hour)
	MaxOps        = int64(1_000_000_000_000)
	MaxRepetition = 1_000_000
	MaxNameLen    = 256  // bytes of a name or a tag
	MaxLabelLen   = 4096 // bytes of a label
	MaxTags       = 64
	MaxStages     = 1000 // stages of an open-loop schedule
	// MaxClients bounds a run group's clients (--clients), and what a
	// client accepts from the group's document; MaxGroupTimeout bounds
	// --group-timeout, and so how far ahead a group's start may be.
	MaxClients      = 10_000
	MaxGroupTimeout = 24 * time.Hour
	// MaxDocBytes is the largest BSON document MongoDB stores (16MiB).
	MaxDocBytes = 16 * MB
	// MaxBatchBytes bounds one preload batch (one insertMany's
	// documents), and MaxLoadBytes every loader's batch together: the
	// preload holds no more than this however large the documents.
	MaxBatchBytes = 16 * MB
	MaxLoadBytes  = 256 * MB
	// MaxDataBytes bounds the data a scenario's parameters ask to load
	// (documents × document size): 64TB, a week at 100MB/s.
	MaxDataBytes = 64 * TB
)

// limitedWants say what the bounded settings accept, bounds included;
// they replace the fields table's text for these keys.
var limitedWants = map[string]string{
	"rate":       wantRate,
	"threads":    "an integer between 1 and 10000, such as 8 or 64",
	"duration":   "a positive duration up to 168h, such as 60s, 1m30s or 90 (seconds)",
	"ops":        "a positive integer up to 1e12, such as 1000000",
	"warmup":     "a duration between 0 and 24h, such as 10s",
	"maxLag":     "a positive duration up to 1h, such as 10s",
	"repetition": "an integer between 0 and 1000000",
}

// Limit is one row of the limits table: a setting, its largest accepted
// value, and why.
type Limit struct {
	Setting string // flag and file key, or "-p name" for a workload parameter
	Max     string
	Why     string
}

// Limits lists every upper limit checked at parse time, for the
// documentation (docs/limits.md is written from it by WriteLimits).
func Limits() []Limit {
	rows := []Limit{
		{"--rate / rate", rateText(MaxRate), "the schedule hands out every slot; 10M/s is far above what one client process sends (use several processes beyond it)"},
		{"--threads / threads", strconv.Itoa(MaxThreads), "each is a goroutine and a pooled connection; 10,000 exceeds what one server accepts by default"},
		{"--duration / duration", "168h", "a soak test of a week; the result document keeps at most 1,000 intervals, coarsened as the run goes, and a MongoDB results store every interval"},
		{"--ops / ops", "1e12", "a day at 10M/s"},
		{"--warmup / warmup", "24h", "a warm-up longer than a day is a mistake"},
		{"--max-lag / maxLag", "1h", "later operations are dropped; an hour of backlog is already meaningless"},
		{"--interval / interval", "1h (at least 100ms)", "the reporting interval"},
		{"--repetition / repetition", strconv.Itoa(MaxRepetition), "a series number"},
		{"--name, each tag", strconv.Itoa(MaxNameLen) + " bytes", "stored in every result and its _id"},
		{"--label / label", strconv.Itoa(MaxLabelLen) + " bytes", "stored in every result"},
		{"--tags / tags", strconv.Itoa(MaxTags) + " tags", "stored in every result"},
		{"--stages / stages", strconv.Itoa(MaxStages) + " stages", "the schedule is stored in every result's variant and _id; a thousand steps already describe any ramp"},
		{"--clients", strconv.Itoa(MaxClients) + " clients", "each is a process registered in the group's document; a group document asking for more is refused before a client acts on it"},
		{"--group-timeout", "24h", "how long a client waits for the others; a group's start instant further ahead than this is refused"},
		{"--threshold / thresholds", strconv.Itoa(threshold.MaxCount) + " thresholds of " + strconv.Itoa(threshold.MaxLen) + " bytes", "each is judged on every run and stored with it"},
	}
	rows = append(rows,
		Limit{"-p docSize, accountSize, entrySize", "16MB", "declared by the workloads: MongoDB's largest document"},
		Limit{"-p batchSize", "100000", "declared by the workloads; a batch is also cut at " + MaxBatchBytes.String() + " of documents"},
		Limit{"-p loaders", "256", "declared by the workloads; fewer run at once when their batches together would pass " + MaxLoadBytes.String()},
		Limit{"-p fieldcount", "10000", "declared by the YCSB workloads"},
		Limit{"-p fieldlength, minfieldlength", "1048576", "declared by the YCSB workloads"},
	)
	for _, c := range paramCeilings {
		rows = append(rows, Limit{"-p " + c.name, c.max, c.why})
	}
	for _, k := range []ParamKind{KindInt, KindFloat, KindSize, KindDuration} {
		rows = append(rows, Limit{"any other " + k.String() + " parameter", kindCeilings[k], "unless the workload declares its own maximum"})
	}
	rows = append(rows,
		Limit{"-p fieldcount × fieldlength", MaxDocBytes.String(), "a YCSB record is one BSON document"},
		Limit{"documents × document size", MaxDataBytes.String(), "the data a preload inserts: a week at 100MB/s"},
	)
	for _, l := range bounded.Limits() {
		rows = append(rows, Limit{l.What, bounded.Size(l.Max), l.Why})
	}
	return rows
}

// WriteLimits writes the limits table as Markdown.
func WriteLimits(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| setting | at most | why |\n|---|---|---|\n")
	for _, r := range Limits() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Setting, r.Max, r.Why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// paramCeilings bound workload parameters by name where the workload's
// declaration gives no maximum of its own; a declared Max wins.
var paramCeilings = []struct{ name, max, why string }{
	{"records", "1e10", "documents preloaded: 10 billion is about 10TB at 1KB"},
	{"accounts", "1e10", "accounts preloaded"},
	{"preload", "1e10", "documents preloaded"},
	{"recordcount", "1e10", "YCSB records"},
	{"insertcount", "1e10", "YCSB records this client loads"},
	{"insertstart", "1e10", "first YCSB key"},
	{"operationcount", "1e12", "sizes YCSB's zipfian key space only"},
	{"minscanlength", "100000", "documents one scan returns, all held in memory"},
	{"maxscanlength", "100000", "documents one scan returns, all held in memory"},
	{"docsPerQuery", "100000", "documents one query returns, all held in memory"},
	{"skip", "1e10", "documents a query skips"},
	{"groupSize", "1000000", "documents per indexed term"},
	{"stripeGroups", "1000000", "groups interleaved while loading"},
	{"summaryBuckets", "1000000", "summary documents preloaded"},
	{"maxAmount", "1e12", "transfer amounts, summed in 64-bit integers"},
	{"maxRetries", "10000", "retries of one transaction"},
	{"uncachedFactor", "100", "the dataset as a multiple of the server's cache"},
	{"cacheSize", "64TB", "the server's cache"},
}

// kindCeilings bound parameters the table above does not name and whose
// declaration has no maximum.
var kindCeilings = map[ParamKind]string{
	KindInt:      "1e12",
	KindFloat:    "1e12",
	KindSize:     "16MB",
	KindDuration: "24h",
}

// maxText is the parameter's largest accepted value in text form: its
// declared Max, else its ceiling by name, else by kind.
func (p ParamSpec) maxText() string {
	if p.Max != "" {
		return p.Max
	}
	for _, c := range paramCeilings {
		if c.name == p.Name {
			return c.max
		}
	}
	return kindCeilings[p.Kind]
}

// limitProblems checks the scenario's settings against their upper
// bounds, and the bounds that span several parameters. Settings already
// found invalid are skipped.
func (s *Scenario) limitProblems() []*Error {
	o := s.origin()
	var errs []*Error
	over := func(key string, bad bool, value, wantText string) {
		if bad && !o.key(key).bad {
			e := o.at(key)
			e.Value, e.Want = value, cmp.Or(wantText, want(key))
			errs = append(errs, e)
		}
	}
	over("rate", s.Rate > MaxRate, s.Rate.String(), want("rate")+"; beyond it run several mongobench processes as one group")
	over("threads", s.Threads > MaxThreads, strconv.Itoa(s.Threads), "")
	over("duration", s.Duration > MaxDuration, s.Duration.String(), "")
	over("ops", s.Ops > MaxOps, strconv.FormatInt(s.Ops, 10), "")
	over("warmup", s.Warmup > MaxWarmup, s.Warmup.String(), "")
	over("maxLag", s.MaxLag > MaxLag, s.MaxLag.String(), "")
	over("repetition", s.Repetition > MaxRepetition, strconv.Itoa(s.Repetition), "")
	over("name", len(s.Name) > MaxNameLen, s.Name, "at most "+strconv.Itoa(MaxNameLen)+" bytes")
	over("label", len(s.Label) > MaxLabelLen, s.Label, "at most "+strconv.Itoa(MaxLabelLen)+" bytes")
	longTag := false
	for _, t := range s.Tags {
		longTag = longTag || len(t) > MaxNameLen
	}
	over("tags", len(s.Tags) > MaxTags || longTag, strings.Join(s.Tags, ","),
		fmt.Sprintf("at most %d tags of at most %d bytes each", MaxTags, MaxNameLen))
	over("stages", len(s.Stages) > MaxStages, StagesSummary(s.Stages), fmt.Sprintf("at most %d stages, got %d", MaxStages, len(s.Stages)))
	const printable = "text without control characters (no line breaks, tabs or terminal escapes)"
	over("name", result.CheckText("name", s.Name) != nil, s.Name, printable)
	over("label", result.CheckText("label", s.Label) != nil, s.Label, printable)
	badTag := false
	for _, t := range s.Tags {
		badTag = badTag || result.CheckText("tag", t) != nil
	}
	over("tags", badTag, strings.Join(s.Tags, ","), "tags of "+printable)
	return append(errs, s.paramSpanProblems()...)
}

// paramSpanProblems checks the bounds that span parameters: a YCSB
// record's fields, and the data a preload inserts.
func (s *Scenario) paramSpanProblems() []*Error {
	o := s.origin()
	var errs []*Error
	at := func(name, want string) {
		path := "params." + name
		if o.key(path).bad {
			return
		}
		e := o.at(path)
		e.Value, e.Want = formatValue(s.Params[name]), want
		errs = append(errs, e)
	}
	count, okCount := s.Params["fieldcount"].(int64)
	length, okLength := s.Params["fieldlength"].(int64)
	if okCount && okLength && count > 0 && length > 0 && count*length > int64(MaxDocBytes) {
		name := "fieldlength"
		if o.key("params.fieldcount").given && !o.key("params.fieldlength").given {
			name = "fieldcount"
		}
		at(name, fmt.Sprintf("fieldcount × fieldlength at most %s (a record is one BSON document); here %d × %d",
			MaxDocBytes, count, length))
	}
	if size, name, ok := s.dataSize(); ok && size > MaxDataBytes {
		at(name, fmt.Sprintf("at most %s of data to load (documents × document size)", MaxDataBytes))
	}
	return errs
}

// dataSize estimates the bytes a preload inserts from the parameters
// every workload names alike: a document count and a document size.
func (s *Scenario) dataSize() (size Size, countParam string, ok bool) {
	var docs int64
	for _, name := range []string{"records", "accounts", "preload", "recordcount"} {
		if n, isInt := s.Params[name].(int64); isInt && n > 0 {
			docs, countParam = n, name
			break
		}
	}
	if countParam == "" {
		return 0, "", false
	}
	var per int64
	if d, isSize := s.Params[docSizeParam(s.Params)].(Size); isSize {
		per = int64(d)
	} else if count, c := s.Params["fieldcount"].(int64); c {
		length, _ := s.Params["fieldlength"].(int64)
		per = count * length
	}
	if per <= 0 {
		return 0, countParam, false
	}
	if docs > int64(MaxDataBytes)/per {
		return MaxDataBytes + 1, countParam, true
	}
	return Size(docs * per), countParam, true
}

func docSizeParam(ps Params) string {
	if _, ok := ps["accountSize"]; ok {
		return "accountSize"
	}
	return "docSize"
}

func rateText(r Rate) string {
	if r >= 1e6 && float64(r) == float64(int64(r/1e6))*1e6 {
		return strconv.FormatInt(int64(r/1e6), 10) + "M/s"
	}
	return r.String()
}

// Estimate is a quick estimate of what a scenario's setup loads and of
// the client memory the run needs, shown before a long setup.
type Estimate struct {
	Docs        int64 // documents the preload inserts
	DataBytes   Size  // their BSON size together
	ClientBytes Size  // the client's memory for the preload's batches and the workers
}

// perWorkerBytes is what one worker holds besides its documents: its
// histograms per operation type and interval, and buffers.
const perWorkerBytes = 256 * KB

// Estimate estimates the data the scenario's preload inserts and the
// client memory it needs; ok is false when the parameters name no
// document count and size.
func (s *Scenario) Estimate() (Estimate, bool) {
	size, _, ok := s.dataSize()
	if !ok {
		return Estimate{}, false
	}
	var docs int64
	for _, name := range []string{"records", "accounts", "preload", "recordcount"} {
		if n, isInt := s.Params[name].(int64); isInt && n > 0 {
			docs = n
			break
		}
	}
	doc := int64(size) / max(docs, 1)
	batch := max(s.Params.intOr("batchSize", 1000), 1)
	loaders := max(s.Params.intOr("loaders", 4), 1)
	batchBytes := min(batch*doc, max(doc, int64(MaxBatchBytes)))
	running := min(loaders, max(1, int64(MaxLoadBytes)/max(batchBytes, 1)))
	client := running*batchBytes + int64(s.Threads)*(2*doc+int64(perWorkerBytes))
	return Estimate{Docs: docs, DataBytes: size, ClientBytes: Size(client)}, true
}

func (ps Params) intOr(name string, def int64) int64 {
	if v, ok := ps[name].(int64); ok {
		return v
	}
	return def
}

// String says the estimate in one line, such as "about 1.0GB of data in
// 1000000 documents; client memory about 70MB".
func (e Estimate) String() string {
	return fmt.Sprintf("about %s of data in %d documents; client memory about %s", approx(e.DataBytes), e.Docs, approx(e.ClientBytes))
}

func approx(s Size) string {
	units := []struct {
		size Size
		name string
	}{{TB, "TB"}, {GB, "GB"}, {MB, "MB"}, {KB, "KB"}}
	for _, u := range units {
		if s >= u.size {
			return strconv.FormatFloat(float64(s)/float64(u.size), 'f', 1, 64) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

// estimateFloor is the data or client memory from which a setup is long
// enough to say what it will take.
const estimateFloor = 256 * MB

// SetupNote is the line shown when the scenario's setup starts loading
// much data or needs much client memory; empty otherwise.
func (s *Scenario) SetupNote() string {
	e, ok := s.Estimate()
	if !ok || e.DataBytes < estimateFloor && e.ClientBytes < estimateFloor {
		return ""
	}
	return fmt.Sprintf("%s: setup loads %s\n", s.Name, e)
}
