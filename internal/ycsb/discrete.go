package ycsb

import "math/rand/v2"

// Op is a core workload operation type.
type Op uint8

// The operations, in YCSB's order of declaration.
const (
	Read Op = iota
	Update
	Insert
	Scan
	ReadModifyWrite
)

// String returns the operation's name as YCSB reports it.
func (o Op) String() string {
	switch o {
	case Read:
		return "READ"
	case Update:
		return "UPDATE"
	case Insert:
		return "INSERT"
	case Scan:
		return "SCAN"
	case ReadModifyWrite:
		return "READ-MODIFY-WRITE"
	}
	return "UNKNOWN"
}

// Discrete is YCSB's DiscreteGenerator as the operation chooser: each
// operation is chosen with probability its weight over the weights' sum.
// It is immutable once built and may be shared.
type Discrete struct {
	ops     []Op
	weights []float64 // normalized
}

// NewDiscrete returns a chooser over the operations with positive weight,
// in the order given; weights[i] is the weight of Op(i).
func NewDiscrete(weights [5]float64) *Discrete {
	d := &Discrete{}
	var sum float64
	for _, w := range weights {
		if w > 0 {
			sum += w
		}
	}
	for i, w := range weights {
		if w > 0 {
			d.ops = append(d.ops, Op(i))
			d.weights = append(d.weights, w/sum)
		}
	}
	return d
}

// Next returns the next operation, walking the weights as YCSB does. The
// last operation absorbs any rounding remainder.
func (d *Discrete) Next(r *rand.Rand) Op {
	val := r.Float64()
	for i, w := range d.weights {
		if val < w {
			return d.ops[i]
		}
		val -= w
	}
	return d.ops[len(d.ops)-1]
}

// Len returns the number of operations with positive weight.
func (d *Discrete) Len() int { return len(d.ops) }
