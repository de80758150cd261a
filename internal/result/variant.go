package result

import "maps"

// Variant holds the values that identify a run within its study, stored
// under variant.* (and in _id) beside the workload's parameters, which
// the runner adds. Each study fills the fields it owns; a nil field is
// not stored.
type Variant struct {
	// Order is the variant's position in its test (catalog), for sorting.
	Order *int

	// A sweep step: the sweep's id, the step's position, the repetition.
	Sweep      *string
	SweepStep  *int
	Repetition *int

	// An SLA run: the tuning journey's stage (stored even when empty) and
	// the transaction mode.
	Stage *string
	Mode  *string

	// A thread calibration step.
	Calibration     *string
	CalibrationStep *int

	// A capacity plan run: the plan's name and the candidate measured.
	Plan      *string
	Candidate *string

	// Phase is "load" for a measured YCSB load phase.
	Phase *string

	// A run group's id, and in a client's own result its index: each
	// client's result and the group's merged one are rows of their own.
	Group       *string
	ClientIndex *int

	// The Performance Tables' variant fields (catalog tests).
	DocSizeKB         *float64
	TotalDocsToInsert *int64
	WriteBatchSize    *int
	IDType            *string
	NSecondaryIndexes *int
	NumberOfThreads   *int
	IndexUpdate       *bool
	NUpdates          *int64
	UpdateFunction    *string
	Upsert            *bool
	PercentNew        *int
	Comment           *string

	// Instance describes the target while tested (variant.instance).
	Instance *Instance
}

// Instance describes a target in the results schema's terms
// (variant.instance, and so _id.instance). A field not given is absent.
type Instance struct {
	AtlasInstanceType string  // the instance type, e.g. M40 or m6i.large
	AtlasDiskType     string  // e.g. gp3, or a local disk's kind
	AtlasIOPS         int64   // provisioned or known disk IOPS
	AtlasDiskSizeGB   float64 // disk size
	VCPU              int64
	RAMGB             float64
	CPUs              string // a local profile's CPU set, e.g. 0-1
	CacheSizeMB       int64  // a local profile's cache size
	// What the host of a server on this machine says of itself
	// (bench_config): the CPU model, the block device and filesystem
	// holding the data directory, and the disk's rotational flag.
	CPUModel   string
	Device     string
	Filesystem string
	Rotational *bool
	// Cost is the price in cents per hour (_id.instance.cost); Price is
	// the price as written and Currency its currency.
	Cost     *float64
	Price    string
	Currency string
}

// Fields returns the variant's values by their stored names.
func (v Variant) Fields() map[string]any {
	m := map[string]any{}
	put(m, "order", v.Order)
	put(m, "sweep", v.Sweep)
	put(m, "sweepStep", v.SweepStep)
	put(m, "repetition", v.Repetition)
	put(m, "stage", v.Stage)
	put(m, "mode", v.Mode)
	put(m, "calibration", v.Calibration)
	put(m, "calibrationStep", v.CalibrationStep)
	put(m, "plan", v.Plan)
	put(m, "candidate", v.Candidate)
	put(m, "phase", v.Phase)
	put(m, "group", v.Group)
	put(m, "clientIndex", v.ClientIndex)
	put(m, "docSizeKB", v.DocSizeKB)
	put(m, "totalDocsToInsert", v.TotalDocsToInsert)
	put(m, "writeBatchSize", v.WriteBatchSize)
	put(m, "idType", v.IDType)
	put(m, "nSecondaryIndexes", v.NSecondaryIndexes)
	put(m, "numberOfThreads", v.NumberOfThreads)
	put(m, "indexUpdate", v.IndexUpdate)
	put(m, "nUpdates", v.NUpdates)
	put(m, "updateFunction", v.UpdateFunction)
	put(m, "upsert", v.Upsert)
	put(m, "percentNew", v.PercentNew)
	put(m, "comment", v.Comment)
	if v.Instance != nil {
		if in := v.Instance.Fields(); len(in) > 0 {
			m["instance"] = in
		}
	}
	return m
}

// Fields returns the description by its stored names, leaving out what
// was not given.
func (in Instance) Fields() map[string]any {
	m := map[string]any{}
	set := func(k string, v any, given bool) {
		if given {
			m[k] = v
		}
	}
	set("atlasInstanceType", in.AtlasInstanceType, in.AtlasInstanceType != "")
	set("atlasDiskType", in.AtlasDiskType, in.AtlasDiskType != "")
	set("atlasIOPS", in.AtlasIOPS, in.AtlasIOPS > 0)
	set("atlasDiskSizeGB", in.AtlasDiskSizeGB, in.AtlasDiskSizeGB > 0)
	set("vCPU", in.VCPU, in.VCPU > 0)
	set("ramGB", in.RAMGB, in.RAMGB > 0)
	set("cpus", in.CPUs, in.CPUs != "")
	set("cacheSizeMB", in.CacheSizeMB, in.CacheSizeMB > 0)
	set("cpuModel", in.CPUModel, in.CPUModel != "")
	set("device", in.Device, in.Device != "")
	set("filesystem", in.Filesystem, in.Filesystem != "")
	if in.Rotational != nil {
		m["rotational"] = *in.Rotational
	}
	if in.Cost != nil {
		m["cost"] = *in.Cost
	}
	set("price", in.Price, in.Price != "")
	set("currency", in.Currency, in.Currency != "")
	return m
}

// Over returns base with every field given in the description replaced
// by the description's: a target's description overrides what was
// detected.
func (in Instance) Over(base Instance) Instance {
	str := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	str(&base.AtlasInstanceType, in.AtlasInstanceType)
	str(&base.AtlasDiskType, in.AtlasDiskType)
	str(&base.CPUs, in.CPUs)
	str(&base.CPUModel, in.CPUModel)
	str(&base.Device, in.Device)
	str(&base.Filesystem, in.Filesystem)
	str(&base.Price, in.Price)
	str(&base.Currency, in.Currency)
	if in.AtlasIOPS > 0 {
		base.AtlasIOPS = in.AtlasIOPS
	}
	if in.AtlasDiskSizeGB > 0 {
		base.AtlasDiskSizeGB = in.AtlasDiskSizeGB
	}
	if in.VCPU > 0 {
		base.VCPU = in.VCPU
	}
	if in.RAMGB > 0 {
		base.RAMGB = in.RAMGB
	}
	if in.CacheSizeMB > 0 {
		base.CacheSizeMB = in.CacheSizeMB
	}
	if in.Rotational != nil {
		base.Rotational = in.Rotational
	}
	if in.Cost != nil {
		base.Cost = in.Cost
	}
	return base
}

func put[T any](m map[string]any, k string, v *T) {
	if v != nil {
		m[k] = *v
	}
}

// VariantOf reads the study's values back from a stored document's
// variant; numbers stored in any numeric type are read alike.
func VariantOf(d *Doc) Variant {
	m := d.Variant
	v := Variant{
		Order: intAt(m, "order"), Sweep: stringAt(m, "sweep"), SweepStep: intAt(m, "sweepStep"),
		Repetition: intAt(m, "repetition"), Stage: stringAt(m, "stage"), Mode: stringAt(m, "mode"),
		Calibration: stringAt(m, "calibration"), CalibrationStep: intAt(m, "calibrationStep"),
		Plan: stringAt(m, "plan"), Candidate: stringAt(m, "candidate"), Phase: stringAt(m, "phase"),
		Group: stringAt(m, "group"), ClientIndex: intAt(m, "clientIndex"),
		DocSizeKB: floatAt(m, "docSizeKB"), TotalDocsToInsert: int64At(m, "totalDocsToInsert"),
		WriteBatchSize: intAt(m, "writeBatchSize"), IDType: stringAt(m, "idType"),
		NSecondaryIndexes: intAt(m, "nSecondaryIndexes"), NumberOfThreads: intAt(m, "numberOfThreads"),
		IndexUpdate: boolAt(m, "indexUpdate"), NUpdates: int64At(m, "nUpdates"),
		UpdateFunction: stringAt(m, "updateFunction"), Upsert: boolAt(m, "upsert"),
		PercentNew: intAt(m, "percentNew"), Comment: stringAt(m, "comment"),
	}
	if in, ok := m["instance"].(map[string]any); ok {
		v.Instance = instanceOf(in)
	}
	return v
}

func instanceOf(m map[string]any) *Instance {
	in := &Instance{Cost: floatAt(m, "cost")}
	str := func(k string) string {
		if s := stringAt(m, k); s != nil {
			return *s
		}
		return ""
	}
	num := func(k string) float64 {
		if f := floatAt(m, k); f != nil {
			return *f
		}
		return 0
	}
	in.AtlasInstanceType, in.AtlasDiskType = str("atlasInstanceType"), str("atlasDiskType")
	in.AtlasIOPS, in.AtlasDiskSizeGB = int64(num("atlasIOPS")), num("atlasDiskSizeGB")
	in.VCPU, in.RAMGB = int64(num("vCPU")), num("ramGB")
	in.CPUs, in.CacheSizeMB = str("cpus"), int64(num("cacheSizeMB"))
	in.Price, in.Currency = str("price"), str("currency")
	in.CPUModel, in.Device, in.Filesystem = str("cpuModel"), str("device"), str("filesystem")
	in.Rotational = boolAt(m, "rotational")
	return in
}

// Number reads a stored number of any numeric type as a float64.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func floatAt(m map[string]any, k string) *float64 {
	if f, ok := Number(m[k]); ok {
		return &f
	}
	return nil
}

func intAt(m map[string]any, k string) *int {
	if f, ok := Number(m[k]); ok {
		n := int(f)
		return &n
	}
	return nil
}

func int64At(m map[string]any, k string) *int64 {
	if f, ok := Number(m[k]); ok {
		n := int64(f)
		return &n
	}
	return nil
}

func stringAt(m map[string]any, k string) *string {
	if s, ok := m[k].(string); ok {
		return &s
	}
	return nil
}

func boolAt(m map[string]any, k string) *bool {
	if b, ok := m[k].(bool); ok {
		return &b
	}
	return nil
}

// Over returns base with the variant's stored fields merged over it, for
// the runner: the workload's parameters, then the study's values.
func (v Variant) Over(base map[string]any) map[string]any {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]any{}
	}
	maps.Copy(out, v.Fields())
	return out
}

// Ptr returns a pointer to v, for filling a Variant.
func Ptr[T any](v T) *T { return &v }
