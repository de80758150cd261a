package ycsb

import (
	"fmt"
	"strconv"
)

// BatchInsert is the operation type of YCSB's load phase measured as a run
// of its own: one insertMany of a batch of records.
const BatchInsert = "BATCH-INSERT"

// FromParams returns the properties of the standard workload preset ("a"
// … "f", or "ycsb-a") with every property present in params set, as
// "-p name=value" sets it. Values are the typed values of a workload's
// parameters: int64, float64, bool or string. Entries that are not YCSB
// properties (batchSize, loaders, …) are left alone. The result is
// validated.
func FromParams(preset string, params map[string]any) (Properties, error) {
	p, ok := Preset(preset)
	if !ok {
		return Properties{}, fmt.Errorf("unknown YCSB workload %q", preset)
	}
	for _, name := range Names() {
		v, ok := params[name]
		if !ok {
			continue
		}
		var text string
		switch v := v.(type) {
		case int64:
			text = strconv.FormatInt(v, 10)
		case float64:
			text = strconv.FormatFloat(v, 'g', -1, 64)
		case bool:
			text = strconv.FormatBool(v)
		case string:
			text = v
		default:
			return p, fmt.Errorf("ycsb property %s: unexpected %T", name, v)
		}
		if err := p.Set(name, text); err != nil {
			return p, err
		}
	}
	return p, p.Validate()
}

// LoadBatches returns how many batches of batchSize records load the
// records these properties insert (insertcount from insertstart), and how
// many records that is. A batch size below 1 counts as 1.
func (p Properties) LoadBatches(batchSize int64) (batches, records int64) {
	_, records = p.InsertRange()
	batchSize = max(batchSize, 1)
	return (records + batchSize - 1) / batchSize, records
}
