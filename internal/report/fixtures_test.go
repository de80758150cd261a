package report

import (
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/testsupport/rundocs"
)

// The fixtures are the documents of testsupport/rundocs, shared with the
// other renderers' tests; golden files carry their names.

var f = result.F

func fixtures() map[string]*result.Doc { return rundocs.All() }
func openDoc() *result.Doc             { return rundocs.OpenDoc() }
func checkpointDoc() *result.Doc       { return rundocs.CheckpointDoc() }
