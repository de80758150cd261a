package workloadfile

import (
	"context"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// guardBase is a file whose aggregate's last stage the cases write.
const guardBase = `collections:
  orders:
    seed: 50
    document:
      _id: !seq
      qty: !int {min: 1, max: 9}
operations:
  agg:
    op: aggregate
    collection: orders
    values: {t: !ejson '{"db": "victimdb", "coll": "orders"}', name: !string 6}
    pipeline: [{$match: {}}, STAGE]
`

// victim is a target in another database.
const victim = `{db: victimdb, coll: orders}`

// targetCases are a $out target made by every generator tag that can
// make a value: refused says the check refuses it (a target the check
// cannot judge, or one that names another database), writes that the
// value can name another database or a collection not the workload's.
var targetCases = []struct {
	tag, value      string
	refused, writes bool
}{
	{"!int", `!int {min: 1, max: 5}`, true, false},
	{"!int32", `!int32 {min: 1, max: 5}`, true, false},
	{"!float", `!float {min: 0, max: 1}`, true, false},
	{"!seq", `!seq {prefix: out_}`, false, false},
	{"!seq", `!seq {prefix: system.}`, true, true},
	{"!string", `!string 8`, false, false},
	{"!choice", `!choice [out, ` + victim + `]`, true, true},
	{"!choice", `!choice {from: [a, b], weights: [1, 2]}`, false, false},
	{"!fake", `!fake word`, false, false},
	{"!date", `!date {min: 2024-01-01, format: date}`, false, false},
	{"!now", `!now `, false, false},
	{"!objectid", `!objectid `, true, false},
	{"!uuid", `!uuid `, true, false},
	{"!binary", `!binary 4`, true, false},
	{"!array", `!array {length: 1, of: victimdb}`, true, false},
	{"!object", `!object {length: 1, of: victimdb}`, true, false},
	{"!maybe", `!maybe {value: ` + victim + `, null: 0.5}`, true, true},
	{"!maybe", `!maybe {value: out, null: 0.5}`, false, false},
	{"!bool", `!bool `, true, false},
	{"!ref", `!ref t`, true, true},
	{"!ref", `!ref name`, false, false},
	{"!key", `!key orders`, true, false},
	{"!ejson", `!ejson '{"db": "victimdb", "coll": "orders"}'`, true, true},
	{"!ejson", `!ejson '"_mongobench"'`, true, true},
	{"!ejson", `!ejson '"out"'`, false, false},
	{"!sample", `!sample {id: !seq , from: [` + victim + `]}`, true, true},
	{"!pad", `!pad 2KB`, true, false},
	{"!expr", `!expr '{"db": "victimdb", "coll": "orders"}'`, true, true},
	{"(plain)", victim, true, true},
	{"(plain)", `{db: !string 4, coll: x}`, true, true},
}

var located = regexp.MustCompile(`^t\.yaml:\d+:\d+: operations\.agg\.pipeline\[1\]`)

// TestWriteStageTargetsAtCheck: a $out or $merge target made through any
// generator tag that could name another database is refused by the
// check, one problem located file:line:column; what it accepts only ever
// writes into the data database.
func TestWriteStageTargetsAtCheck(t *testing.T) {
	var covered []string
	for _, c := range targetCases {
		covered = append(covered, c.tag)
		for _, stage := range []string{"{$out: V}", "{$merge: {into: V}}", "{$merge: V}"} {
			st := strings.ReplaceAll(stage, "V", c.value)
			t.Run(c.tag+" "+st, func(t *testing.T) {
				text := strings.Replace(guardBase, "STAGE", st, 1)
				f, err := Parse("t.yaml", []byte(text))
				if c.refused {
					if err == nil {
						t.Fatalf("accepted:\n%s", text)
					}
					if !located.MatchString(err.Error()) || strings.Contains(err.Error(), "\n") {
						t.Fatalf("want one problem located at the stage, got\n%v", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if err := Check(context.Background(), io.Discard, f, 1, 20); err != nil {
					t.Fatalf("check: %v", err)
				}
				g := f.NewGen(7, 1)
				for range 200 {
					g.Begin(f.Ops[0])
					if why := writeProblem(f.Ops[0].Pipeline.Append(nil, g)); why != "" || g.Refused() != nil {
						t.Fatalf("a pipeline the check accepted writes elsewhere: %s", why)
					}
				}
			})
		}
	}
	for _, tag := range tags {
		if !slices.Contains(covered, tag) {
			t.Errorf("no case makes a target with %s", tag)
		}
	}
}

// TestWriteStageWholeGenerated: a stage, or a pipeline, made by a
// generator is refused: the check could not judge where it writes.
func TestWriteStageWholeGenerated(t *testing.T) {
	for _, st := range []string{
		`!ejson '{"$out": {"db": "victimdb", "coll": "orders"}}'`,
		`!choice [{$out: ` + victim + `}, {$match: {}}]`,
		`!choice {from: [{$out: ` + victim + `}]}`,
		`!ref t`,
		`!expr '{"$out": "x"}'`,
	} {
		text := strings.Replace(guardBase, "STAGE", st, 1)
		if _, err := Parse("t.yaml", []byte(text)); err == nil || !located.MatchString(err.Error()) {
			t.Errorf("stage %s: want a located refusal, got %v", st, err)
		}
	}
	text := strings.Replace(guardBase, "pipeline: [{$match: {}}, STAGE]", "pipeline: !choice [[{$out: "+victim+"}]]", 1)
	if _, err := Parse("t.yaml", []byte(text)); err == nil || !strings.Contains(err.Error(), "operations.agg.pipeline: got a list: want a list of stages") {
		t.Errorf("a generated pipeline: %v", err)
	}
}

// TestWriteGuardAtRunTime: whatever a generator makes, a pipeline that
// would write outside the data database is never sent: the generated
// pipeline passes the rule each time, and one that fails it is replaced
// by an empty one with Refused saying why. Each generator is put where
// the check would refuse it, the rule alone standing.
func TestWriteGuardAtRunTime(t *testing.T) {
	for _, c := range targetCases {
		if c.tag == "!pad" || c.tag == "!ref" { // a pad is never a value alone; every case is drawn through !ref
			continue
		}
		t.Run(c.tag+" "+c.value, func(t *testing.T) {
			text := strings.Replace(guardBase, `t: !ejson '{"db": "victimdb", "coll": "orders"}', name: !string 6`, "t: "+c.value, 1)
			text = strings.Replace(text, "STAGE", "{$out: out}", 1)
			f, err := Parse("t.yaml", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			op := f.Ops[0]
			// the stage {$out: the value}, generated each iteration
			op.Pipeline = &Template{n: &arrayNode{items: []node{&docNode{fields: []field{{key: "$out", v: &refGen{i: 0}}}}}},
				array: true, guard: true, path: "operations.agg.pipeline"}
			g := f.NewGen(3, 0)
			refusals := 0
			for range 200 {
				g.Begin(op)
				cmd := command(nil, op, g)
				err := g.Refused()
				if err != nil {
					refusals++
					if !strings.HasPrefix(err.Error(), "operations.agg.pipeline: as generated, $out: ") {
						t.Fatalf("refusal %q", err)
					}
				}
				_, pipeline := lookup(cmd, "pipeline")
				if why := writeProblem(pipeline); why != "" {
					t.Fatalf("a pipeline that writes elsewhere was made to be sent: %s: %s", why, Render(cmd))
				}
			}
			if c.writes && refusals == 0 {
				t.Errorf("never refused")
			}
			if !c.writes && refusals > 0 {
				t.Errorf("refused %d of 200 that write into the data database", refusals)
			}
		})
	}
}
