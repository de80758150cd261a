package workloadfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/spec"
)

// FuzzParse: no file makes Parse or the check panic; a file it accepts
// generates valid BSON for every collection and operation, and no
// pipeline it generates is made to be sent writing outside the data
// database. The seeds are the repository's workloads and the hostile
// inputs of issue 35.
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
	for _, c := range targetCases {
		f.Add([]byte(strings.Replace(guardBase, "STAGE", "{$out: "+c.value+"}", 1)))
	}
	for _, field := range []string{
		"v: !int {min: -9223372036854775808, max: 9223372036854775807}",
		"v: !float {min: -1.7e308, max: 1.7e308, dist: zipfian}",
		"v: !seq 9223372036854775806",
		"v: !pad 16MB",
		"v: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]",
		"v: {a: {a: {a: {a: 1}}}}",
	} {
		f.Add([]byte(withField(field)))
	}
	f.Add([]byte("collections:\n  c:\n    seed: 5\n    document: !sample {id: !seq , from: []}\n" + ops))
	f.Add([]byte(base + "    weight: 1e308\n  r2:\n    op: findOne\n    weight: 1e308\n    collection: users\n    filter: {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("f.yaml", data)
		if err != nil {
			return
		}
		// a large document's check is linear, but a fuzzer's hour is
		// better spent on many small files
		if err := Check(context.Background(), io.Discard, file, 1, 1); err != nil {
			var se *spec.Error
			if !errors.As(err, &se) {
				t.Fatalf("check: %v", err)
			}
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
				_ = g.Refused()
				if err := bson.Raw(d).Validate(); err != nil {
					t.Fatalf("operation %s (%s): %v", op.Name, o.Kind, err)
				}
				if _, p := lookup(d, "pipeline"); o.Kind == "aggregate" && writeProblem(p) != "" {
					t.Fatalf("operation %s would write elsewhere: %s", op.Name, Render(d))
				}
				_ = Render(d)
			}
		}
	})
}
