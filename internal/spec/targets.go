package spec

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/result"

	"go.yaml.in/yaml/v3"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/price"
)

// Target is a deployment a test runs against: a server reached by URI,
// or a local server profile started for the run. Exactly one of URI and
// Profile is set.
type Target struct {
	// Label names the target in results (_id.label) and tables; unique
	// within a file.
	Label    string
	URI      string
	Profile  *Profile
	Instance Instance
	// Price is nil when not given.
	Price *price.Price
	// Baseline marks the target others are compared with; at most one
	// target of a file is the baseline.
	Baseline bool
	// HostMetrics are the Prometheus node exporters of the server's host,
	// or of a replica set's members' hosts, read for host telemetry instead
	// of this machine's /proc; HostDevice names the disks their counters
	// are read for (default: the disk holding each member's dbPath). None
	// when not given.
	HostMetrics []HostMetric
	HostDevice  []HostDevice
	// Line is where the target starts in its file; 0 when built from flags.
	Line int
}

// Profile is a local server started for a target: pinned to a CPU set
// and given a storage cache size. A zero field leaves the server's own
// default (all CPUs, its default cache).
type Profile struct {
	// CPUs is a CPU list for taskset -c, such as "0", "0-1" or "0,2".
	CPUs      string
	CacheSize Size
}

// Instance describes the hardware of a target. Every field is optional
// and descriptive; a zero field was not given.
type Instance struct {
	Type       string
	DiskType   string
	IOPS       int64
	DiskSizeGB float64
	VCPU       int64
	RAMGB      float64
}

// targetsFile describes a targets file in messages about its shape.
var targetsFile = fileKind{
	want: `a mapping with a list of targets such as "targets: [{label: a, uri: 'mongodb://h/'}]"`,
	one:  "one list of targets per file",
}

// Keys of a targets file, of a target, of a profile and of an instance.
var (
	targetsFileKeys = []string{"targets"}
	targetKeys      = []string{"label", "uri", "profile", "instance", "price", "baseline", "hostMetrics", "hostDevice"}
	profileKeys     = []string{"cpus", "cacheSize"}
	instanceKeys    = []string{"type", "diskType", "iops", "diskSizeGB", "vCPU", "ramGB"}
)

const (
	wantLabel     = "a unique name such as m6i-xlarge or local-2cpu"
	wantURIOrProf = "exactly one of uri (a deployment to reach) or profile (a local server to start, such as {cpus: \"0\", cacheSize: 256MB})"
	wantTargetURI = "a connection string such as mongodb://host:27017/"
	wantCPUs      = `a CPU list for taskset such as "0", "0-1" or "0,2"`
	wantCacheSize = "a size of at least 1MB such as 256MB or 1GB"
	wantTarget    = "a mapping with label and uri or profile"
	wantInstance  = "a mapping of type, diskType, iops, diskSizeGB, vCPU, ramGB"
)

// ParseTargetsFile reads a targets file; see ParseTargets.
func ParseTargetsFile(path string) ([]Target, error) {
	data, err := bounded.ReadFile(path, bounded.ScenarioFile)
	if err != nil {
		return nil, fmt.Errorf("read targets: %w", err)
	}
	return ParseTargets(path, data)
}

// ParseTargets reads a list of targets from YAML:
//
//	targets:
//	  - label: m6i-xlarge
//	    uri: mongodb://db1:27017/
//	    instance: {type: m6i.xlarge, diskType: gp3, iops: 3000, diskSizeGB: 100, vCPU: 4, ramGB: 16}
//	    price: 0.42 USD/h
//	    baseline: true
//	  - label: local-1cpu
//	    profile: {cpus: "0", cacheSize: 256MB}
//	    price: 694 EUR/month
//
// The error, if any, joins every problem found; each starts with
// "filename:line: " and names the field, the value and what is valid.
func ParseTargets(filename string, data []byte) ([]Target, error) {
	if filename == "" {
		filename = "<input>"
	}
	p := &parser{file: filename, kind: targetsFile}
	root := p.document(data)
	if root == nil {
		return nil, joinErrors(p.errs)
	}
	var list *yaml.Node
	for _, e := range p.entries(root, "", "key", targetsFileKeys) {
		list = e.val
	}
	if list == nil {
		p.add(root.Line, &Error{Field: "targets", Problem: "is missing", Want: "a list of targets"})
		return nil, joinErrors(p.errs)
	}
	targets := p.targetList("targets", list)
	if len(p.errs) > 0 {
		return nil, joinErrors(p.errs)
	}
	return targets, nil
}

// targetList reads a non-empty list of targets under field, checking that
// labels are unique and that at most one target is the baseline.
func (p *parser) targetList(field string, val *yaml.Node) []Target {
	n := resolve(val)
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		problem := kindName(n) + " is not valid"
		if n.Kind == yaml.SequenceNode || isNull(n) {
			problem = "the list is empty"
		}
		p.add(val.Line, &Error{Field: field, Problem: problem, Want: "a list of at least one target"})
		return nil
	}
	var out []Target
	labels := map[string]int{}
	baseline := 0
	for i, item := range n.Content {
		path := fmt.Sprintf("%s[%d]", field, i)
		t, ok := p.target(path, item)
		if !ok {
			continue
		}
		if first, dup := labels[t.Label]; dup && t.Label != "" {
			p.add(t.Line, &Error{Field: path + ".label", Problem: fmt.Sprintf("duplicate label %q (first at line %d)", clip(t.Label), first), Want: wantLabel})
		}
		labels[t.Label] = t.Line
		if t.Baseline && baseline > 0 {
			p.add(t.Line, &Error{Field: path + ".baseline", Problem: fmt.Sprintf("a second baseline (the first is at line %d)", baseline), Want: "at most one target with baseline: true"})
		}
		if t.Baseline && baseline == 0 {
			baseline = t.Line
		}
		out = append(out, t)
	}
	return out
}

// target reads one target mapping.
func (p *parser) target(path string, val *yaml.Node) (Target, bool) {
	m := resolve(val)
	if m.Kind != yaml.MappingNode {
		p.add(val.Line, &Error{Field: path, Problem: kindName(m) + " is not valid", Want: wantTarget})
		return Target{}, false
	}
	t := Target{Line: m.Line}
	given := map[string]int{}
	for _, e := range p.entries(m, path, "key", targetKeys) {
		f := path + "." + e.name
		given[e.name] = e.key.Line
		switch e.name {
		case "label":
			t.Label, _ = p.text(f, e.val, wantLabel)
		case "uri":
			if u, ok := p.text(f, e.val, wantTargetURI); ok && (u == "" || !validURI(u)) {
				p.add(e.val.Line, &Error{Field: f, Value: u, Want: wantTargetURI})
			} else {
				t.URI = u
			}
		case "profile":
			t.Profile = p.profile(f, e.val)
		case "instance":
			t.Instance = p.instance(f, e.val)
		case "price":
			if s, ok := p.text(f, e.val, price.Want); ok {
				if pr, err := price.Parse(s); err != nil {
					p.add(e.val.Line, &Error{Field: f, Value: s, Want: price.Want})
				} else {
					t.Price = &pr
				}
			}
		case "baseline":
			t.Baseline = p.boolean(f, e.val)
		case "hostMetrics":
			if u, ok := p.textList(f, e.val, wantHostMetrics); ok {
				list := ParseHostMetrics(u)
				if err := checkHostMetricsList(list); err != nil {
					p.add(e.val.Line, &Error{Field: f, Problem: err.Error()})
				} else {
					t.HostMetrics = list
				}
			}
		case "hostDevice":
			if d, ok := p.textList(f, e.val, WantHostDevice); ok {
				list := ParseHostDevices(d)
				if err := CheckHostDevices(list); err != nil {
					p.add(e.val.Line, &Error{Field: f, Problem: err.Error(), Want: WantHostDevice})
				} else {
					t.HostDevice = list
				}
			}
		}
	}
	if _, ok := given["label"]; !ok {
		p.add(m.Line, &Error{Field: path + ".label", Problem: "is missing", Want: wantLabel})
	} else if t.Label == "" {
		p.add(given["label"], &Error{Field: path + ".label", Problem: "is empty", Want: wantLabel})
	}
	_, hasURI := given["uri"]
	_, hasProfile := given["profile"]
	if hasURI == hasProfile {
		problem := "neither uri nor profile is given"
		if hasURI {
			problem = "both uri and profile are given"
		}
		p.add(m.Line, &Error{Field: path, Problem: problem, Want: wantURIOrProf})
	}
	if hasProfile && t.Profile == nil {
		t.Profile = &Profile{} // "profile:" with no settings: a server with its defaults
	}
	return t, true
}

// profile reads a profile mapping; null is a profile with defaults.
func (p *parser) profile(path string, val *yaml.Node) *Profile {
	pr := &Profile{}
	p.scalars(path, val, "a mapping such as {cpus: \"0\", cacheSize: 256MB}", profileKeys, func(name, f, s string, line int) {
		switch name {
		case "cpus":
			if !validCPUs(s) {
				p.add(line, &Error{Field: f, Value: s, Want: wantCPUs})
				return
			}
			pr.CPUs = s
		case "cacheSize":
			sz, err := ParseSize(s)
			if err != nil || sz < MB {
				p.add(line, &Error{Field: f, Value: s, Want: wantCacheSize})
				return
			}
			pr.CacheSize = sz
		}
	})
	return pr
}

// scalars reads a mapping of scalar values under path (null is an empty
// one), calling set with each key, its field path, its text and its line.
func (p *parser) scalars(path string, val *yaml.Node, want string, keys []string, set func(name, field, text string, line int)) {
	m := p.mappingOf(path, val, want)
	if m == nil {
		return
	}
	for _, e := range p.entries(m, path, "key", keys) {
		f := path + "." + e.name
		if s, ok := p.text(f, e.val, ""); ok {
			set(e.name, f, s, e.val.Line)
		}
	}
}

// instance reads an instance description.
func (p *parser) instance(path string, val *yaml.Node) Instance {
	var in Instance
	p.scalars(path, val, wantInstance, instanceKeys, func(name, f, s string, line int) {
		switch name {
		case "type":
			in.Type = s
		case "diskType":
			in.DiskType = s
		case "iops":
			in.IOPS = p.positiveInt(f, line, s, "a positive whole number such as 3000")
		case "vCPU":
			in.VCPU = p.positiveInt(f, line, s, "a positive whole number such as 4")
		case "diskSizeGB":
			in.DiskSizeGB = p.positive(f, line, s, "a positive number such as 100")
		case "ramGB":
			in.RAMGB = p.positive(f, line, s, "a positive number such as 16 or 0.5")
		}
	})
	return in
}

// ParseInstance reads an instance description given on the command line
// as a YAML flow mapping, such as "{type: m6i.xlarge, iops: 3000}"; its
// errors name the flag.
func ParseInstance(flag, text string) (Instance, error) {
	p := &parser{}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) == 0 {
		return Instance{}, &Error{Field: flag, Value: text, Want: wantInstance + ", such as {type: m6i.xlarge, iops: 3000}"}
	}
	in := p.instance(flag, doc.Content[0])
	return in, joinErrors(p.errs) // no file: messages name the flag, not a line
}

// mappingOf returns a mapping node, or nil for null or after recording
// that the node is something else.
func (p *parser) mappingOf(path string, val *yaml.Node, want string) *yaml.Node {
	n := resolve(val)
	if n.Kind == yaml.MappingNode {
		return n
	}
	if !isNull(n) {
		p.add(val.Line, &Error{Field: path, Problem: kindName(n) + " is not valid", Want: want})
	}
	return nil
}

// text returns a scalar's text, recording a node that is not a scalar.
func (p *parser) text(path string, val *yaml.Node, want string) (string, bool) {
	n := resolve(val)
	if n.Kind != yaml.ScalarNode {
		p.add(val.Line, &Error{Field: path, Problem: kindName(n) + " is not valid", Want: want})
		return "", false
	}
	if isNull(n) {
		return "", true
	}
	return strings.TrimSpace(n.Value), true
}

// textList reads one text or a list of texts, joined by commas.
func (p *parser) textList(path string, val *yaml.Node, want string) (string, bool) {
	n := resolve(val)
	if n.Kind != yaml.SequenceNode {
		return p.text(path, val, want)
	}
	var parts []string
	for _, item := range n.Content {
		s, ok := p.text(path, item, want)
		if !ok {
			return "", false
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ","), true
}

// boolean reads true or false.
func (p *parser) boolean(path string, val *yaml.Node) bool {
	s, ok := p.text(path, val, "true or false")
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(s)
	if err != nil || (s != "true" && s != "false") {
		p.add(val.Line, &Error{Field: path, Value: s, Want: "true or false"})
	}
	return b
}

func (p *parser) positiveInt(path string, line int, s, want string) int64 {
	n, ok := parseInt(s)
	if !ok || n <= 0 {
		p.add(line, &Error{Field: path, Value: s, Want: want})
		return 0
	}
	return n
}

func (p *parser) positive(path string, line int, s, want string) float64 {
	v, ok := parseDecimal(s)
	if !ok || v <= 0 {
		p.add(line, &Error{Field: path, Value: s, Want: want})
		return 0
	}
	return v
}

var cpuListRE = regexp.MustCompile(`^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$`)

// validCPUs reports whether s is a CPU list whose ranges run upwards.
func validCPUs(s string) bool {
	_, ok := cpuList(s)
	return ok
}

// cpuList returns the CPUs a list names, in the order given.
func cpuList(s string) ([]int, bool) {
	if !cpuListRE.MatchString(s) {
		return nil, false
	}
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := strconv.Atoi(lo)
		b := a
		var errB error
		if isRange {
			b, errB = strconv.Atoi(hi)
		}
		if errA != nil || errB != nil || b < a || b-a > 4096 {
			return nil, false
		}
		for c := a; c <= b; c++ {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out, true
}

// CPUList returns the CPUs the profile is pinned to, nil when it is not.
func (p Profile) CPUList() []int {
	l, _ := cpuList(p.CPUs)
	return l
}

// Described is the target's description as the results schema names
// it (variant.instance, and so _id.instance): atlasInstanceType,
// atlasDiskType, atlasIOPS, atlasDiskSizeGB, vCPU and ramGB as given
// (a profile's vCPU defaults to the size of its CPU set); for a profile,
// cpus and cacheSizeMB; with a price, cost in cents per hour, price as
// written and currency. Fields not given are left empty, and not stored.
func (t Target) Described() result.Instance {
	in := t.Instance
	out := result.Instance{
		AtlasInstanceType: in.Type, AtlasDiskType: in.DiskType, AtlasIOPS: in.IOPS,
		AtlasDiskSizeGB: in.DiskSizeGB, VCPU: in.VCPU, RAMGB: in.RAMGB,
	}
	if p := t.Profile; p != nil {
		if n := int64(len(p.CPUList())); in.VCPU == 0 && n > 0 {
			out.VCPU = n
		}
		out.CPUs = p.CPUs
		if p.CacheSize > 0 {
			out.CacheSizeMB = int64(p.CacheSize / MB)
		}
	}
	if p := t.Price; p != nil {
		out.Cost = result.Ptr(p.CentsPerHour())
		out.Price, out.Currency = p.String(), p.Currency
	}
	return out
}
