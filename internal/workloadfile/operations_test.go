package workloadfile

import (
	"strings"
	"testing"
)

// more is a valid file with every kind of operation beyond the plain
// reads and writes; the error cases change one line of it.
const more = `collections:
  accounts:
    seed: 10
    document: {_id: !seq , balance: !int 100, tag: !choice [a, b]}
  entries:
    seed: 0
  buckets:
    seed: 2
    document: {_id: !seq , count: !int 0, total: !int 0}
audit: {ledger: {entries: entries, summary: buckets}}
operations:
  pay:
    op: transaction
    values:
      from: !key accounts
      amount: !int {min: 1, max: 9}
    readConcern: snapshot
    writeConcern: {w: majority, j: true}
    maxCommitTime: 2s
    maxRetries: 5
    steps:
      - {op: updateOne, collection: accounts, filter: {_id: !ref from}, update: {$inc: {balance: !ref amount}}}
      - {op: insertOne, collection: entries, document: {from: !ref from, amount: !ref amount}}
  bulk:
    op: bulkWrite
    collection: accounts
    ordered: false
    writes:
      - insertOne: {collection: entries, document: {n: 1}}
      - updateMany: {filter: {tag: a}, update: {$inc: {balance: 1}}}
      - deleteOne: {collection: entries, filter: {n: 2}}
  take: {op: findOneAndUpdate, collection: accounts, filter: {_id: !key accounts}, update: {$inc: {balance: -1}}, returnDocument: after, sort: {_id: 1}}
  swap: {op: findOneAndReplace, collection: accounts, filter: {_id: !key accounts}}
  drop: {op: findOneAndDelete, collection: entries, filter: {}}
  tally: {op: count, collection: accounts, filter: {tag: a}, limit: 5, readPreference: secondaryPreferred}
  tags: {op: distinct, collection: accounts, key: tag, readPreference: {mode: nearest, tagSets: [{dc: east}, {}], maxStalenessSeconds: 120}}
`

func TestParseMoreOperations(t *testing.T) {
	f, err := Parse("m.yaml", []byte(more))
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]*Op{}
	for _, o := range f.Ops {
		ops[o.Name] = o
	}
	pay := ops["pay"]
	if pay.Kind != "transaction" || len(pay.Steps) != 2 || pay.ReadConcern != "snapshot" || pay.MaxRetries != 5 || pay.MaxCommitTime.Seconds() != 2 || !pay.Write() {
		t.Errorf("pay: %+v", pay)
	}
	bulk := ops["bulk"]
	if len(bulk.Writes) != 3 || len(bulk.Namespaces) != 2 || bulk.Namespaces[0].Name != "entries" || bulk.Writes[1].ns != 1 || bulk.Ordered || !bulk.Multi() {
		t.Errorf("bulk: %+v", bulk)
	}
	if !ops["take"].ReturnNew || ops["tags"].Key != "tag" || ops["tally"].ReadPreference.Mode != "secondaryPreferred" ||
		ops["tags"].ReadPreference.MaxStaleness.Seconds() != 120 || len(ops["tags"].ReadPreference.TagSets) != 2 || ops["tally"].Write() {
		t.Errorf("take, tally, tags: %+v %+v %+v", ops["take"], ops["tally"], ops["tags"])
	}
	if a := f.Audit; a == nil || a.Kind != "ledger" || a.Accounts != "accounts" || a.Entries != "entries" || a.Summary != "buckets" || a.InitialBalance != 1_000_000 {
		t.Errorf("audit %+v", a)
	}
}

// TestMoreCommands checks the commands the new kinds send.
func TestMoreCommands(t *testing.T) {
	f, err := Parse("m.yaml", []byte(more))
	if err != nil {
		t.Fatal(err)
	}
	g := f.NewGen(1, 0)
	want := map[string]string{
		"bulk": `{"bulkWrite": 1, "ops": [{"insert": 0, "document": {"n": 1}}, {"update": 1, "filter": {"tag": "a"}, "updateMods": {"$inc": {"balance": 1}}, "multi": true, "upsert": false}, ` +
			`{"delete": 0, "filter": {"n": 2}, "multi": false}], "nsInfo": [{"ns": "mongobench_data.entries"}, {"ns": "mongobench_data.accounts"}], "ordered": false, "errorsOnly": true}`,
		"take":  `"sort": {"_id": 1}, "update": {"$inc": {"balance": -1}}, "new": true, "upsert": false}`,
		"drop":  `{"findAndModify": "entries", "query": {}, "remove": true}`,
		"tally": `{"aggregate": "accounts", "pipeline": [{"$match": {"tag": "a"}}, {"$limit": 5}, {"$group": {"_id": 1, "n": {"$sum": 1}}}], "cursor": {}, "$readPreference": {"mode": "secondaryPreferred"}}`,
		"tags":  `{"distinct": "accounts", "key": "tag", "query": {}, "$readPreference": {"mode": "nearest", "tags": [{"dc": "east"}, {}], "maxStalenessSeconds": 120}}`,
		"swap":  `"update": {"balance": 100, "tag": `,
	}
	for _, o := range f.Ops {
		if o.Kind == "transaction" {
			continue
		}
		g.Begin(o)
		got := Render(command(nil, o, g))
		if !strings.Contains(got, want[o.Name]) {
			t.Errorf("%s: %s\nwant it to contain %s", o.Name, got, want[o.Name])
		}
	}
	if a := f.Audit; a.Entries != "entries" || a.Summary != "buckets" || a.Accounts != "accounts" || a.InitialBalance != 1_000_000 {
		t.Errorf("audit %+v", a)
	}
}

// TestParseMoreErrors checks the new kinds' problems, one error each,
// located file:line:column.
func TestParseMoreErrors(t *testing.T) {
	cases := []struct{ name, old, new, want string }{
		{"unknown findOneAndUpdate key", "returnDocument: after", "retrunDocument: after", `m.yaml:32:115: operations.take: unknown findOneAndUpdate key "retrunDocument" (did you mean "returnDocument"?`},
		{"bad returnDocument", "returnDocument: after", "returnDocument: later", `m.yaml:32:131: operations.take.returnDocument: unknown returnDocument "later" (did you mean "after"?): want one of before, after`},
		{"unknown write", "- updateMany:", "- updateMnay:", `m.yaml:30:9: operations.bulk.writes[1]: unknown write "updateMnay" (did you mean "updateMany"?)`},
		{"insertMany in a bulkWrite", "- updateMany: {filter: {tag: a}, update: {$inc: {balance: 1}}}", "- insertMany: {document: {n: 1}}", `m.yaml:30:9: operations.bulk.writes[1]: unknown write "insertMany" (did you mean "insertOne"?): want one of insertOne, updateOne, updateMany, replaceOne, deleteOne, deleteMany`},
		{"unknown key of a write", "deleteOne: {collection: entries, filter:", "deleteOne: {collection: entries, filtr:", `m.yaml:31:42: operations.bulk.writes[2].deleteOne: unknown deleteOne key "filtr" (did you mean "filter"?`},
		{"write on an undefined collection", "deleteOne: {collection: entries,", "deleteOne: {collection: entry,", `m.yaml:31:33: operations.bulk.writes[2].deleteOne.collection: unknown collection "entry" (did you mean "entries"?)`},
		{"write concern on a write", "{n: 1}}\n", "{n: 1}, writeConcern: {w: 1}}\n", `m.yaml:29:60: operations.bulk.writes[0].insertOne: unknown insertOne key "writeConcern" (valid: collection, document)`},
		{"bulkWrite without writes", "    writes:\n      - insertOne: {collection: entries, document: {n: 1}}\n      - updateMany: {filter: {tag: a}, update: {$inc: {balance: 1}}}\n      - deleteOne: {collection: entries, filter: {n: 2}}\n", "    writes: []\n", `m.yaml:28:13: operations.bulk.writes: got a list: want a list of 1 to 1000 writes`},
		{"concern on a step", "{op: insertOne, collection: entries,", "{op: insertOne, writeConcern: {w: 1}, collection: entries,", `m.yaml:23:25: operations.pay.steps[1]: a transaction's step takes writeConcern from its transaction: give it there`},
		{"transaction in a transaction", "{op: insertOne, collection: entries, document: {from: !ref from, amount: !ref amount}}", "{op: transaction, steps: []}", `m.yaml:23:14: operations.pay.steps[1].op: a transaction's step cannot be a transaction`},
		{"undefined value in a step", "{from: !ref from,", "{from: !ref form,", `m.yaml:23:63: operations.pay.steps[1].document.from: !ref: undefined value "form" (did you mean "from"?)`},
		{"unknown transaction key", "    maxRetries: 5", "    maxRetry: 5", `m.yaml:20:5: operations.pay: unknown transaction key "maxRetry" (did you mean "maxRetries"?`},
		{"collection of a transaction", "    maxRetries: 5", "    collection: accounts", `m.yaml:20:5: operations.pay: unknown transaction key "collection" (valid: op, weight, values, steps,`},
		{"transaction's read concern", "readConcern: snapshot", "readConcern: available", `m.yaml:17:18: operations.pay.readConcern: a transaction reads at local, majority or snapshot, not available`},
		{"bad maxCommitTime", "maxCommitTime: 2s", "maxCommitTime: soon", `m.yaml:19:20: operations.pay.maxCommitTime: got "soon": want a duration above 0`},
		{"bad maxRetries", "maxRetries: 5", "maxRetries: -1", `m.yaml:20:17: operations.pay.maxRetries: -1 is not valid: want 0 to 10000 retries`},
		{"transaction without steps", "    steps:\n      - {op: updateOne, collection: accounts, filter: {_id: !ref from}, update: {$inc: {balance: !ref amount}}}\n      - {op: insertOne, collection: entries, document: {from: !ref from, amount: !ref amount}}\n", "", `m.yaml:13:5: operations.pay: missing key "steps": transaction needs it`},
		{"unknown read preference", "readPreference: secondaryPreferred", "readPreference: secondaryPrefered", `m.yaml:35:88: operations.tally.readPreference: unknown read preference mode "secondaryPrefered" (did you mean "secondaryPreferred"?)`},
		{"read preference of a write", "returnDocument: after,", "returnDocument: after, readPreference: secondary,", `m.yaml:32:138: operations.take: unknown findOneAndUpdate key "readPreference"`},
		{"staleness too small", "maxStalenessSeconds: 120", "maxStalenessSeconds: 30", `m.yaml:36:136: operations.tags.readPreference.maxStalenessSeconds: 30 is not valid: want at least 90 seconds`},
		{"tags with primary", "mode: nearest, tagSets: [{dc: east}, {}], maxStalenessSeconds: 120", "mode: primary, tagSets: [{dc: east}]", `m.yaml:36:97: operations.tags.readPreference.tagSets: mode primary takes no tag sets`},
		{"distinct without a key", "key: tag, ", "", `m.yaml:36:9: operations.tags: missing key "key": distinct needs it`},
		{"distinct of an operator", "key: tag,", "key: $tag,", `m.yaml:36:51: operations.tags.key: "$tag" is not a field`},
		{"audit's default collections", "audit: {ledger: {entries: entries, summary: buckets}}", "audit: ledger", `m.yaml:10:8: audit: the ledger audit's entries "ledger" and summary "ledger_summary" are not collections of the file (it defines accounts, entries, buckets)`},
		{"unknown audit", "audit: {ledger: {entries: entries, summary: buckets}}", "audit: ledgr", `m.yaml:10:8: audit: unknown audit "ledgr" (did you mean "ledger"?)`},
		{"audit of an undefined collection", "summary: buckets}}", "summary: bucket}}", `m.yaml:10:45: audit.ledger.summary: unknown collection "bucket": the file defines accounts, entries, buckets`},
		{"unknown audit key", "summary: buckets}}", "summary: buckets, initalBalance: 5}}", `m.yaml:10:54: audit.ledger: unknown ledger audit key "initalBalance" (did you mean "initialBalance"?`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(more, c.old, c.new, 1)
			if text == more {
				t.Fatalf("the case changes nothing: %q not in the file", c.old)
			}
			_, err := Parse("m.yaml", []byte(text))
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
