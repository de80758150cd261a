package cli

import (
	"fmt"

	"github.com/mongobench/mongobench/internal/spec"
)

// estimateFloor is the data or client memory from which a setup is long
// enough to say what it will take.
const estimateFloor = 256 * spec.MB

// estimateLine is the line shown when a scenario's setup starts loading
// much data or needs much client memory; empty otherwise.
func estimateLine(sc *spec.Scenario) string {
	e, ok := sc.Estimate()
	if !ok || e.DataBytes < estimateFloor && e.ClientBytes < estimateFloor {
		return ""
	}
	return fmt.Sprintf("%s: setup loads %s\n", sc.Name, e)
}
