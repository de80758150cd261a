package ycsb

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func mustSet(t *testing.T, p *Properties, name, value string) {
	t.Helper()
	if err := p.Set(name, value); err != nil {
		t.Fatal(err)
	}
}

func TestPresets(t *testing.T) {
	type mix struct {
		read, update, insert, scan, rmw float64
		dist                            string
	}
	want := map[string]mix{
		"a": {0.5, 0.5, 0, 0, 0, "zipfian"},
		"b": {0.95, 0.05, 0, 0, 0, "zipfian"},
		"c": {1, 0, 0, 0, 0, "zipfian"},
		"d": {0.95, 0, 0.05, 0, 0, "latest"},
		"e": {0, 0, 0.05, 0.95, 0, "zipfian"},
		"f": {0.5, 0, 0, 0, 0.5, "zipfian"},
	}
	for _, name := range PresetNames() {
		p, ok := Preset("ycsb-" + name)
		if !ok {
			t.Fatalf("preset %s missing", name)
		}
		got := mix{p.ReadProportion, p.UpdateProportion, p.InsertProportion, p.ScanProportion,
			p.ReadModifyWriteProportion, p.RequestDistribution}
		if got != want[name] {
			t.Errorf("preset %s: %+v, want %+v", name, got, want[name])
		}
		if p.RecordCount != 1000 || p.OperationCount != 1000 || p.FieldCount != 10 ||
			p.FieldLength != 100 || !p.ReadAllFields || p.WriteAllFields ||
			p.InsertOrder != "hashed" || p.ZeroPadding != 1 {
			t.Errorf("preset %s: common values %+v", name, p)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	if e, _ := Preset("workloade"); e.MaxScanLength != 100 || e.ScanLengthDistribution != "uniform" {
		t.Errorf("preset e scans: %d %s", e.MaxScanLength, e.ScanLengthDistribution)
	}
	if _, ok := Preset("g"); ok {
		t.Error("preset g exists")
	}
}

func TestSet(t *testing.T) {
	p, _ := Preset("a")
	mustSet(t, &p, "recordcount", "100000")
	mustSet(t, &p, "RequestDistribution", "hotspot")
	mustSet(t, &p, "insertorder", "ordered")
	mustSet(t, &p, "writeallfields", "true")
	if p.RecordCount != 100000 || p.RequestDistribution != "hotspot" || !p.Ordered() || !p.WriteAllFields {
		t.Fatalf("overrides not applied: %+v", p)
	}
	err := p.Set("recrodcount", "5")
	if err == nil || !strings.Contains(err.Error(), "valid properties") ||
		!strings.Contains(err.Error(), "recordcount") || !strings.Contains(err.Error(), "zeropadding") {
		t.Fatalf("unknown property: err = %v", err)
	}
	for _, bad := range [][2]string{{"recordcount", "-1"}, {"readproportion", "1.5"},
		{"requestdistribution", "exponential"}, {"readallfields", "yes please"}, {"zeropadding", "x"}} {
		if err := p.Set(bad[0], bad[1]); err == nil {
			t.Errorf("Set(%s, %s) accepted", bad[0], bad[1])
		}
	}
}

func TestValidate(t *testing.T) {
	p, _ := Preset("a")
	mustSet(t, &p, "insertstart", "500")
	mustSet(t, &p, "insertcount", "600")
	if p.Validate() == nil {
		t.Error("insertstart + insertcount beyond recordcount accepted")
	}
	p, _ = Preset("c")
	mustSet(t, &p, "readproportion", "0")
	if p.Validate() == nil {
		t.Error("all-zero proportions accepted")
	}
	p, _ = Preset("b")
	mustSet(t, &p, "insertstart", "250")
	if s, c := p.InsertRange(); s != 250 || c != 750 {
		t.Errorf("InsertRange = %d, %d; want 250, 750", s, c)
	}
}

// TestWorkloadKeysStayInRange builds every preset and distribution and
// checks the keys a worker chooses lie in this client's range, below the
// highest acknowledged insert.
func TestWorkloadKeysStayInRange(t *testing.T) {
	for _, dist := range []string{"uniform", "zipfian", "latest", "hotspot", "sequential"} {
		p, _ := Preset("a")
		mustSet(t, &p, "requestdistribution", dist)
		mustSet(t, &p, "insertstart", "200")
		mustSet(t, &p, "insertcount", "300")
		w, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		k := w.Worker()
		r := rand.New(rand.NewPCG(6, 6))
		lo := int64(200)
		if dist == "latest" {
			lo = 0 // latest covers every key below the insert counter
		}
		for range 20_000 {
			if n := k.NextKeynum(r); n < lo || n > 999 || (dist != "latest" && n > 499+1) {
				t.Fatalf("%s: key number %d outside this client's range", dist, n)
			}
		}
	}
}

func TestWorkloadInsertsAndOps(t *testing.T) {
	p, _ := Preset("d")
	w, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	if w.Load.Next() != 0 || w.Inserts.Next() != 1000 || w.Inserts.Last() != 999 {
		t.Fatal("load counter must start at insertstart, inserts at recordcount")
	}
	k := w.Worker()
	r := rand.New(rand.NewPCG(7, 7))
	var inserts int
	for range 10_000 {
		switch k.NextOp(r) {
		case Insert:
			inserts++
		case Read:
		default:
			t.Fatal("workload d chose neither read nor insert")
		}
		if f := k.Field(r); f < 0 || f >= 10 {
			t.Fatalf("field %d", f)
		}
	}
	if inserts < 350 || inserts > 650 {
		t.Fatalf("%d inserts in 10,000 operations, want about 500", inserts)
	}
}

// TestGetReadsBackWhatSetSets checks that every property Set accepts has
// a getter whose text Set reads back to the same properties.
func TestGetReadsBackWhatSetSets(t *testing.T) {
	for _, name := range PresetNames() {
		p, _ := Preset(name)
		for _, prop := range Names() {
			text, ok := p.Get(prop)
			if !ok {
				t.Fatalf("Get(%q): unknown", prop)
			}
			q := Defaults()
			if err := q.Set(prop, text); err != nil {
				t.Fatalf("Set(%q, %q): %v", prop, text, err)
			}
			if back, _ := q.Get(prop); back != text {
				t.Errorf("preset %s: %s: Get gives %q, after Set %q", name, prop, text, back)
			}
		}
	}
	if len(getters) != len(setters) {
		t.Errorf("%d getters for %d setters", len(getters), len(setters))
	}
	if _, ok := Defaults().Get("nosuch"); ok {
		t.Error(`Get("nosuch"): known`)
	}
}
