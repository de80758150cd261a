package engine

import "github.com/mongobench/mongobench/internal/result"

// Class is the kind of a failed operation. Failed operations are counted
// by class and kept out of the latency histograms.
type Class uint8

// Error classes.
const (
	Timeout Class = iota
	Network
	WriteConflict
	DuplicateKey
	Overload
	Other
	numClasses
)

var classNames = [numClasses]string{"timeout", "network", "writeConflict", "duplicateKey", "overload", "other"}

func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "other"
}

// A Classifier maps an operation's error to its class.
type Classifier func(error) Class

// ErrorCounts counts errors by class.
type ErrorCounts [numClasses]int64

// Total is the number of errors of every class.
func (e *ErrorCounts) Total() int64 {
	var n int64
	for _, v := range e {
		n += v
	}
	return n
}

// Result returns the counts as stored in a result document.
func (e *ErrorCounts) Result() result.Errors {
	return result.Errors{
		Total: e.Total(), Timeout: e[Timeout], Network: e[Network],
		WriteConflict: e[WriteConflict], DuplicateKey: e[DuplicateKey],
		Overload: e[Overload], Other: e[Other],
	}
}

func (e *ErrorCounts) add(o *ErrorCounts) {
	for i := range e {
		e[i] += o[i]
	}
}
