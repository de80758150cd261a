package workloadfile

import (
	"os"
	"path/filepath"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzParse: no file makes Parse panic, and a file it accepts generates
// valid BSON for every collection and operation.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("../../workloads/*.yaml")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(shapes))
	f.Add([]byte(base))
	f.Add([]byte(more))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("f.yaml", data)
		if err != nil {
			return
		}
		g := file.NewGen(1, 0)
		for _, c := range file.Collections {
			if c.Doc == nil || c.Seed == 0 {
				continue
			}
			if err := bson.Raw(g.Seed(nil, c, 1, 0)).Validate(); err != nil {
				t.Fatalf("collection %s: %v", c.Name, err)
			}
		}
		for _, op := range file.Ops {
			g.Begin(op)
			for _, o := range append([]*Op{op}, op.Steps...) {
				d := command(nil, o, g)
				if err := bson.Raw(d).Validate(); err != nil {
					t.Fatalf("operation %s (%s): %v", op.Name, o.Kind, err)
				}
				_ = Render(d)
			}
		}
	})
}
