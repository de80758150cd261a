package workload

import "github.com/mongobench/mongobench/internal/engine"

// UsesWire reports whether a task sends its operations over a wire
// connection of its own (not the driver).
func UsesWire(task engine.Task) bool {
	switch t := task.(type) {
	case *kvTask:
		return t.wire != nil
	case *hotDocTask:
		return t.wire != nil
	case *insertTask:
		return t.wire != nil
	case *updateTask:
		return t.wire != nil
	case *queryTask:
		return t.wire != nil
	}
	return false
}
