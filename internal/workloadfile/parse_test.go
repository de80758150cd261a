package workloadfile

import (
	"strings"
	"testing"
)

// base is a valid file the error cases change one line of.
const base = `name: t
collections:
  users:
    seed: 100
    document:
      _id: !seq
      age: !int {min: 18, max: 90}
operations:
  read:
    op: findOne
    collection: users
    filter: {_id: !key users}
`

func TestParseValid(t *testing.T) {
	f, err := Parse("t.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "t" || len(f.Collections) != 1 || f.Collections[0].Seed != 100 || len(f.Ops) != 1 || f.Ops[0].Name != "read" {
		t.Fatalf("parsed %+v", f)
	}
	if len(f.Hash) != 64 || string(f.Text) != base {
		t.Fatalf("text and hash not kept: %q", f.Hash)
	}
}

// TestParseErrors checks each kind of problem is found before anything
// runs, one error each, located file:line:column.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, old, new string
		want           string // file:line:col: path and problem, in part
	}{
		{"unknown top key", "name: t", "nmae: t", `t.yaml:1:1: unknown key "nmae" (did you mean "name"?`},
		{"unknown collection key", "    seed: 100", "    seeds: 100", `t.yaml:4:5: collections.users: unknown collection key "seeds" (did you mean "seed"?`},
		{"unknown operation key", "    collection: users\n    filter", "    collection: users\n    fliter", `t.yaml:12:5: operations.read: unknown findOne key "fliter" (did you mean "filter"?`},
		{"key of another kind", "    collection: users\n    filter", "    collection: users\n    update: {}\n    filter", `t.yaml:12:5: operations.read: unknown findOne key "update"`},
		{"unknown op", "op: findOne", "op: findOen", `t.yaml:10:9: operations.read.op: unknown operation "findOen" (did you mean "findOne"?)`},
		{"wrong type", "seed: 100", "seed: many", `t.yaml:4:11: collections.users.seed: got "many": want an integer`},
		{"wrong type of a generator key", "min: 18", "min: old", `t.yaml:7:23: collections.users.document.age: !int.min: got "old": want an integer`},
		{"bad range", "min: 18, max: 90", "min: 90, max: 18", `t.yaml:7:23: collections.users.document.age: !int: min 90 is above max 18`},
		{"missing max", "{min: 18, max: 90}", "{min: 18}", `t.yaml:7:12: collections.users.document.age: !int: missing key "max"`},
		{"unknown distribution", "max: 90}", "max: 90, dist: zipfan}", `t.yaml:7:42: collections.users.document.age: !int.dist: unknown distribution "zipfan" (did you mean "zipfian"?)`},
		{"option of another distribution", "max: 90}", "max: 90, theta: 0.5}", `t.yaml:7:43: collections.users.document.age: !int.theta: applies to dist: zipfian only`},
		{"zipfian skew", "max: 90}", "max: 90, dist: zipfian, theta: 1.5}", `collections.users.document.age: !int.theta: 1.5 is not valid: want a skew between 0 and 1`},
		{"unknown generator", "!int {min", "!integer {min", `t.yaml:7:12: collections.users.document.age: unknown generator !integer (did you mean !int?)`},
		{"undefined collection", "collection: users", "collection: user", `t.yaml:11:17: operations.read.collection: unknown collection "user" (did you mean "users"?)`},
		{"key of an undefined collection", "!key users}", "!key people}", `t.yaml:12:19: operations.read.filter._id: !key: unknown collection "people"`},
		{"undefined value", "!key users}", "!ref user}", `t.yaml:12:19: operations.read.filter._id: !ref: undefined value "user": none defined`},
		{"ref outside an operation", "!seq", "!ref x", `t.yaml:6:12: collections.users.document._id: !ref: !ref names a value of an operation's values, and there are none here`},
		{"bad share", "age: !int {min: 18, max: 90}", "age: !maybe {value: 1, null: 2}", `t.yaml:7:36: collections.users.document.age: !maybe.null: got "2": want a share from 0 to 1`},
		{"generator in a sort", "filter: {_id: !key users}", "filter: {}\n    sort: {age: !int 1}", `t.yaml:13:17: operations.read.sort.age: a sort takes no generator (!int)`},
		{"key without a keyed _id", "_id: !seq", "_id: !int {min: 0, max: 5}", `t.yaml:12:19: operations.read.filter._id: !key: collection "users"'s _id does not follow from the seeded document's index`},
		{"negative weight", "    op: findOne", "    weight: -1\n    op: findOne", `t.yaml:10:13: operations.read.weight: -1 is not valid: want a weight >= 0`},
		{"merge into another database", "    op: findOne\n    collection: users\n    filter: {_id: !key users}", "    op: aggregate\n    collection: users\n    pipeline: [{$merge: {into: {db: admin, coll: x}}}]", `t.yaml:12:33: operations.read.pipeline[0].$merge.into: a stage that writes may only name a collection`},
		{"bad read concern", "    filter: {_id: !key users}", "    filter: {_id: !key users}\n    readConcern: majorty", `t.yaml:13:18: operations.read.readConcern: unknown read concern level "majorty" (did you mean "majority"?)`},
		{"write concern on a read", "    filter: {_id: !key users}", "    filter: {_id: !key users}\n    writeConcern: {w: 1}", `t.yaml:13:5: operations.read: unknown findOne key "writeConcern"`},
		{"yaml syntax", "    seed: 100", "    seed: [100", `t.yaml:`},
		{"seeded without a document", "    document:\n      _id: !seq\n      age: !int {min: 18, max: 90}\n", "", `t.yaml:3:3: collections.users: seeds 100 documents but has no document`},
		{"bad operation name", "  read:", "  read it:", `t.yaml:9:3: operations: operation name "read it" is not valid`},
		{"document too large", "age: !int {min: 18, max: 90}", "age: !array {length: 1000, of: !string 100000}", `t.yaml:6:7: collections.users.document: a document of up to 95.4 MB: want at most 16.0 MB`},
		{"reserved collection", "operations:", "  _mongobench: {}\noperations:", `t.yaml:8:3: collections: collection "_mongobench": the name of mongobench's ownership marker is reserved`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(base, c.old, c.new, 1)
			if text == base {
				t.Fatalf("the case changes nothing: %q not in the base", c.old)
			}
			_, err := Parse("t.yaml", []byte(text))
			if err == nil {
				t.Fatalf("no error for\n%s", text)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error\n%v\nwant it to contain\n%s", err, c.want)
			}
			if lines := strings.Count(err.Error(), "\n") + 1; lines != 1 {
				t.Errorf("%d errors for one problem:\n%v", lines, err)
			}
		})
	}
}

// TestParseErrorsTogether checks every problem of a file is reported at
// once, in file order.
func TestParseErrorsTogether(t *testing.T) {
	text := strings.NewReplacer("seed: 100", "seed: -1", "max: 90", "max: 9", "collection: users", "collection: nobody").Replace(base)
	_, err := Parse("t.yaml", []byte(text))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "t.yaml:4:") || !strings.HasPrefix(lines[1], "t.yaml:7:") || !strings.HasPrefix(lines[2], "t.yaml:11:") {
		t.Fatalf("want three problems in order, got\n%v", err)
	}
}

// TestParseAliasBomb: aliases of aliases cannot make the check run
// without bound.
func TestParseAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n")
	for i := 1; i < 12; i++ {
		b.WriteString("a" + itoa(int64(i)) + ": &a" + itoa(int64(i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + itoa(int64(i-1)))
		}
		b.WriteString("]\n")
	}
	text := strings.Replace(base, "      age:", "      bomb: {"+strings.ReplaceAll(strings.TrimSpace(b.String()), "\n", ", ")+"}\n      age:", 1)
	_, err := Parse("t.yaml", []byte(text))
	if err == nil || !strings.Contains(err.Error(), "more than 1000000 nodes") {
		t.Fatalf("error %v", err)
	}
}
