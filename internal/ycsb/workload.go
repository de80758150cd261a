package ycsb

import (
	"fmt"
	"math/rand/v2"
)

// Workload wires the generators as YCSB's CoreWorkload.init does. It holds
// the state all workers share: the load phase's key Counter and the run
// phase's insert AcknowledgedCounter. Each worker takes its own Worker.
type Workload struct {
	P       Properties
	Load    *Counter             // load phase key numbers, from insertstart
	Inserts *AcknowledgedCounter // run phase insert key numbers, from recordcount

	ops      *Discrete
	keys     Generator // prototype; Worker clones it
	fieldLen Generator
	scanLen  Generator
}

// New validates p and builds the workload's generators.
func New(p Properties) (*Workload, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	start, _ := p.InsertRange()
	w := &Workload{
		P:       p,
		Load:    NewCounter(start),
		Inserts: NewAcknowledgedCounter(p.Records()),
		ops:     NewDiscrete(p.proportions()),
	}
	var err error
	if w.keys, err = w.keyChooser(); err != nil {
		return nil, err
	}
	if w.fieldLen, err = p.FieldLengthGenerator(); err != nil {
		return nil, err
	}
	w.scanLen, err = p.ScanLengthGenerator()
	return w, err
}

// keyChooser returns the request distribution's generator.
func (w *Workload) keyChooser() (Generator, error) {
	p := w.P
	start, count := p.InsertRange()
	switch p.RequestDistribution {
	case "uniform":
		return Uniform{start, start + count - 1}, nil
	case "sequential":
		return NewSequential(start, start+count-1), nil
	case "zipfian":
		// YCSB widens the space by twice the expected inserts so that the
		// popular keys stay put as inserts grow it; its upper bound is
		// inclusive, so the space has one more item than the sum.
		expected := int64(float64(p.OperationCount) * p.InsertProportion * 2.0)
		return NewScrambledZipfian(start, start+count+expected), nil
	case "latest":
		return NewSkewedLatest(w.Inserts), nil
	case "hotspot":
		return NewHotspot(start, start+count-1, p.HotspotDataFraction, p.HotspotOpnFraction), nil
	}
	return nil, fmt.Errorf("unknown request distribution %q", p.RequestDistribution)
}

// FieldLengthGenerator returns the generator of field lengths
// (fieldlengthdistribution over [minfieldlength, fieldlength]).
func (p Properties) FieldLengthGenerator() (Generator, error) {
	switch p.FieldLengthDistribution {
	case "constant":
		return Constant{p.FieldLength}, nil
	case "uniform":
		return Uniform{p.MinFieldLength, p.FieldLength}, nil
	case "zipfian":
		return NewZipfian(p.MinFieldLength, p.FieldLength), nil
	}
	return nil, fmt.Errorf("unknown field length distribution %q", p.FieldLengthDistribution)
}

// ScanLengthGenerator returns the generator of scan lengths
// (scanlengthdistribution over [minscanlength, maxscanlength]).
func (p Properties) ScanLengthGenerator() (Generator, error) {
	switch p.ScanLengthDistribution {
	case "uniform":
		return Uniform{p.MinScanLength, p.MaxScanLength}, nil
	case "zipfian":
		return NewZipfian(p.MinScanLength, p.MaxScanLength), nil
	}
	return nil, fmt.Errorf("distribution %q not allowed for scan length", p.ScanLengthDistribution)
}

// Worker is one worker's view of a Workload: its own copies of the
// stateful generators over the workload's shared counters. It is not safe
// for concurrent use.
type Worker struct {
	w        *Workload
	keys     Generator
	fieldLen Generator
	scanLen  Generator
}

// Worker returns a new worker's generators.
func (w *Workload) Worker() *Worker {
	return &Worker{w: w, keys: Clone(w.keys), fieldLen: Clone(w.fieldLen), scanLen: Clone(w.scanLen)}
}

// NextOp returns the next operation.
func (k *Worker) NextOp(r *rand.Rand) Op { return k.w.ops.Next(r) }

// NextKeynum returns the key number of a read, update, scan start or
// read-modify-write: drawn from the request distribution and redrawn
// while it exceeds the highest acknowledged insert, as YCSB does.
func (k *Worker) NextKeynum(r *rand.Rand) int64 {
	for {
		n := k.keys.Next(r)
		if n <= k.w.Inserts.Last() {
			return n
		}
	}
}

// FieldLength returns the length of the next field value.
func (k *Worker) FieldLength(r *rand.Rand) int64 { return k.fieldLen.Next(r) }

// ScanLength returns the number of records of the next scan.
func (k *Worker) ScanLength(r *rand.Rand) int64 { return k.scanLen.Next(r) }

// Field returns the index of a field chosen uniformly, for reads and
// writes of one field.
func (k *Worker) Field(r *rand.Rand) int64 { return r.Int64N(k.w.P.FieldCount) }
