package ycsb

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Properties are the core workload's properties, named as in YCSB's
// property files. Defaults returns CoreWorkload's defaults; Preset the
// standard workloads.
type Properties struct {
	RecordCount               int64   // recordcount; 0 means math.MaxInt32, as YCSB
	OperationCount            int64   // operationcount
	Table                     string  // table
	FieldCount                int64   // fieldcount
	FieldNamePrefix           string  // fieldnameprefix
	FieldLength               int64   // fieldlength: the (maximum) field length
	MinFieldLength            int64   // minfieldlength
	FieldLengthDistribution   string  // fieldlengthdistribution: constant, uniform, zipfian
	ReadAllFields             bool    // readallfields
	WriteAllFields            bool    // writeallfields
	ReadProportion            float64 // readproportion
	UpdateProportion          float64 // updateproportion
	InsertProportion          float64 // insertproportion
	ScanProportion            float64 // scanproportion
	ReadModifyWriteProportion float64 // readmodifywriteproportion
	RequestDistribution       string  // requestdistribution: uniform, zipfian, latest, hotspot, sequential
	MinScanLength             int64   // minscanlength
	MaxScanLength             int64   // maxscanlength
	ScanLengthDistribution    string  // scanlengthdistribution: uniform, zipfian
	InsertOrder               string  // insertorder: hashed, ordered
	ZeroPadding               int     // zeropadding
	InsertStart               int64   // insertstart
	InsertCount               int64   // insertcount; 0 means recordcount - insertstart
	HotspotDataFraction       float64 // hotspotdatafraction
	HotspotOpnFraction        float64 // hotspotopnfraction
}

// Defaults returns CoreWorkload's defaults.
func Defaults() Properties {
	return Properties{
		Table:                   "usertable",
		FieldCount:              10,
		FieldNamePrefix:         "field",
		FieldLength:             100,
		MinFieldLength:          1,
		FieldLengthDistribution: "constant",
		ReadAllFields:           true,
		ReadProportion:          0.95,
		UpdateProportion:        0.05,
		RequestDistribution:     "uniform",
		MinScanLength:           1,
		MaxScanLength:           1000,
		ScanLengthDistribution:  "uniform",
		InsertOrder:             "hashed",
		ZeroPadding:             1,
		HotspotDataFraction:     0.2,
		HotspotOpnFraction:      0.8,
	}
}

// presets holds the values of YCSB's workloads/workload[a-f] files.
var presets = map[string][]string{
	"a": {"readproportion=0.5", "updateproportion=0.5", "requestdistribution=zipfian"},
	"b": {"readproportion=0.95", "updateproportion=0.05", "requestdistribution=zipfian"},
	"c": {"readproportion=1", "updateproportion=0", "requestdistribution=zipfian"},
	"d": {"readproportion=0.95", "updateproportion=0", "insertproportion=0.05",
		"requestdistribution=latest"},
	"e": {"readproportion=0", "updateproportion=0", "scanproportion=0.95",
		"insertproportion=0.05", "requestdistribution=zipfian", "maxscanlength=100",
		"scanlengthdistribution=uniform"},
	"f": {"readproportion=0.5", "updateproportion=0", "readmodifywriteproportion=0.5",
		"requestdistribution=zipfian"},
}

// presetCommon holds the values every standard workload file sets.
var presetCommon = []string{"recordcount=1000", "operationcount=1000",
	"readallfields=true", "scanproportion=0", "insertproportion=0"}

// Preset returns the properties of a standard workload, named "a" … "f"
// (or "ycsb-a", "workloada"), and whether the name is known.
func Preset(name string) (Properties, bool) {
	name = strings.ToLower(name)
	name = strings.TrimPrefix(strings.TrimPrefix(name, "ycsb-"), "workload")
	own, ok := presets[name]
	if !ok {
		return Properties{}, false
	}
	p := Defaults()
	for _, kv := range slices.Concat(presetCommon, own) {
		k, v, _ := strings.Cut(kv, "=")
		if err := p.Set(k, v); err != nil {
			panic(err) // the tables above are wrong
		}
	}
	return p, true
}

// PresetNames returns the preset names Preset knows.
func PresetNames() []string { return []string{"a", "b", "c", "d", "e", "f"} }

// setter parses a value into one property.
type setter func(p *Properties, v string) error

var setters = map[string]setter{
	"recordcount":               intProp(func(p *Properties) *int64 { return &p.RecordCount }),
	"operationcount":            intProp(func(p *Properties) *int64 { return &p.OperationCount }),
	"table":                     strProp(func(p *Properties) *string { return &p.Table }),
	"fieldcount":                intProp(func(p *Properties) *int64 { return &p.FieldCount }),
	"fieldnameprefix":           strProp(func(p *Properties) *string { return &p.FieldNamePrefix }),
	"fieldlength":               intProp(func(p *Properties) *int64 { return &p.FieldLength }),
	"minfieldlength":            intProp(func(p *Properties) *int64 { return &p.MinFieldLength }),
	"fieldlengthdistribution":   enumProp(func(p *Properties) *string { return &p.FieldLengthDistribution }, "constant", "uniform", "zipfian"),
	"readallfields":             boolProp(func(p *Properties) *bool { return &p.ReadAllFields }),
	"writeallfields":            boolProp(func(p *Properties) *bool { return &p.WriteAllFields }),
	"readproportion":            fracProp(func(p *Properties) *float64 { return &p.ReadProportion }),
	"updateproportion":          fracProp(func(p *Properties) *float64 { return &p.UpdateProportion }),
	"insertproportion":          fracProp(func(p *Properties) *float64 { return &p.InsertProportion }),
	"scanproportion":            fracProp(func(p *Properties) *float64 { return &p.ScanProportion }),
	"readmodifywriteproportion": fracProp(func(p *Properties) *float64 { return &p.ReadModifyWriteProportion }),
	"requestdistribution":       enumProp(func(p *Properties) *string { return &p.RequestDistribution }, "uniform", "zipfian", "latest", "hotspot", "sequential"),
	"minscanlength":             intProp(func(p *Properties) *int64 { return &p.MinScanLength }),
	"maxscanlength":             intProp(func(p *Properties) *int64 { return &p.MaxScanLength }),
	"scanlengthdistribution":    enumProp(func(p *Properties) *string { return &p.ScanLengthDistribution }, "uniform", "zipfian"),
	"insertorder":               enumProp(func(p *Properties) *string { return &p.InsertOrder }, "hashed", "ordered"),
	"zeropadding":               zeroPaddingProp,
	"insertstart":               intProp(func(p *Properties) *int64 { return &p.InsertStart }),
	"insertcount":               intProp(func(p *Properties) *int64 { return &p.InsertCount }),
	"hotspotdatafraction":       fracProp(func(p *Properties) *float64 { return &p.HotspotDataFraction }),
	"hotspotopnfraction":        fracProp(func(p *Properties) *float64 { return &p.HotspotOpnFraction }),
}

// getters render each property as text, as Set reads it.
var getters = map[string]func(p Properties) string{
	"recordcount":               func(p Properties) string { return itoa(p.RecordCount) },
	"operationcount":            func(p Properties) string { return itoa(p.OperationCount) },
	"table":                     func(p Properties) string { return p.Table },
	"fieldcount":                func(p Properties) string { return itoa(p.FieldCount) },
	"fieldnameprefix":           func(p Properties) string { return p.FieldNamePrefix },
	"fieldlength":               func(p Properties) string { return itoa(p.FieldLength) },
	"minfieldlength":            func(p Properties) string { return itoa(p.MinFieldLength) },
	"fieldlengthdistribution":   func(p Properties) string { return p.FieldLengthDistribution },
	"readallfields":             func(p Properties) string { return strconv.FormatBool(p.ReadAllFields) },
	"writeallfields":            func(p Properties) string { return strconv.FormatBool(p.WriteAllFields) },
	"readproportion":            func(p Properties) string { return ftoa(p.ReadProportion) },
	"updateproportion":          func(p Properties) string { return ftoa(p.UpdateProportion) },
	"insertproportion":          func(p Properties) string { return ftoa(p.InsertProportion) },
	"scanproportion":            func(p Properties) string { return ftoa(p.ScanProportion) },
	"readmodifywriteproportion": func(p Properties) string { return ftoa(p.ReadModifyWriteProportion) },
	"requestdistribution":       func(p Properties) string { return p.RequestDistribution },
	"minscanlength":             func(p Properties) string { return itoa(p.MinScanLength) },
	"maxscanlength":             func(p Properties) string { return itoa(p.MaxScanLength) },
	"scanlengthdistribution":    func(p Properties) string { return p.ScanLengthDistribution },
	"insertorder":               func(p Properties) string { return p.InsertOrder },
	"zeropadding":               func(p Properties) string { return strconv.Itoa(p.ZeroPadding) },
	"insertstart":               func(p Properties) string { return itoa(p.InsertStart) },
	"insertcount":               func(p Properties) string { return itoa(p.InsertCount) },
	"hotspotdatafraction":       func(p Properties) string { return ftoa(p.HotspotDataFraction) },
	"hotspotopnfraction":        func(p Properties) string { return ftoa(p.HotspotOpnFraction) },
}

func itoa(n int64) string   { return strconv.FormatInt(n, 10) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Get returns the property name (case-insensitive) as text that Set
// reads back to the same value, and whether the name is known.
func (p Properties) Get(name string) (string, bool) {
	get, ok := getters[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return "", false
	}
	return get(p), true
}

// Names returns the property names Set accepts, sorted.
func Names() []string {
	names := make([]string, 0, len(setters))
	for n := range setters {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Set sets the property name (case-insensitive) from its text value, as
// "-p name=value" does. An unknown name is an error listing the valid ones.
func (p *Properties) Set(name, value string) error {
	set, ok := setters[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return fmt.Errorf("unknown YCSB property %q; valid properties: %s",
			name, strings.Join(Names(), ", "))
	}
	if err := set(p, strings.TrimSpace(value)); err != nil {
		return fmt.Errorf("property %s: %w", name, err)
	}
	return nil
}

func intProp(field func(*Properties) *int64) setter {
	return func(p *Properties, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a non-negative integer", v)
		}
		*field(p) = n
		return nil
	}
}

func zeroPaddingProp(p *Properties, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 64 {
		return fmt.Errorf("%q is not an integer in [0, 64]", v)
	}
	p.ZeroPadding = n
	return nil
}

func fracProp(field func(*Properties) *float64) setter {
	return func(p *Properties, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1 || math.IsNaN(f) {
			return fmt.Errorf("%q is not a number in [0, 1]", v)
		}
		*field(p) = f
		return nil
	}
}

func boolProp(field func(*Properties) *bool) setter {
	return func(p *Properties, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		*field(p) = b
		return nil
	}
}

func strProp(field func(*Properties) *string) setter {
	return func(p *Properties, v string) error {
		if v == "" {
			return fmt.Errorf("empty value")
		}
		*field(p) = v
		return nil
	}
}

func enumProp(field func(*Properties) *string, valid ...string) setter {
	return func(p *Properties, v string) error {
		v = strings.ToLower(v)
		if !slices.Contains(valid, v) {
			return fmt.Errorf("%q is not one of %s", v, strings.Join(valid, ", "))
		}
		*field(p) = v
		return nil
	}
}

// Records returns recordcount as YCSB uses it: 0 means math.MaxInt32.
func (p Properties) Records() int64 {
	if p.RecordCount == 0 {
		return math.MaxInt32
	}
	return p.RecordCount
}

// InsertRange returns the first key number this client loads and how many
// it loads: insertstart and insertcount, which defaults to the rest of
// recordcount.
func (p Properties) InsertRange() (start, count int64) {
	count = p.InsertCount
	if count == 0 {
		count = p.Records() - p.InsertStart
	}
	return p.InsertStart, count
}

// Ordered reports whether keys are named in order (insertorder=ordered).
func (p Properties) Ordered() bool { return p.InsertOrder == "ordered" }

// Key returns the name of key number keynum under these properties.
func (p Properties) Key(keynum int64) string {
	return KeyName(keynum, p.ZeroPadding, p.Ordered())
}

// Validate reports properties YCSB would reject or could not run.
func (p Properties) Validate() error {
	start, count := p.InsertRange()
	switch {
	case p.proportions() == [5]float64{}:
		return fmt.Errorf("every operation proportion is 0")
	case count < 1:
		return fmt.Errorf("insertcount %d: no keys to operate on", count)
	case p.Records() < start+count:
		return fmt.Errorf("recordcount (%d) must be at least insertstart + insertcount (%d + %d)",
			p.Records(), start, count)
	case p.FieldCount < 1:
		return fmt.Errorf("fieldcount must be at least 1")
	case p.MinFieldLength > p.FieldLength && p.FieldLengthDistribution != "constant":
		return fmt.Errorf("minfieldlength %d exceeds fieldlength %d", p.MinFieldLength, p.FieldLength)
	case p.ScanProportion > 0 && (p.MinScanLength < 1 || p.MinScanLength > p.MaxScanLength):
		return fmt.Errorf("scan lengths must satisfy 1 <= minscanlength (%d) <= maxscanlength (%d)",
			p.MinScanLength, p.MaxScanLength)
	}
	return nil
}

// proportions returns the operation weights in Op order.
func (p Properties) proportions() [5]float64 {
	return [5]float64{p.ReadProportion, p.UpdateProportion, p.InsertProportion,
		p.ScanProportion, p.ReadModifyWriteProportion}
}
