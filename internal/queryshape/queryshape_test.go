package queryshape

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/recording"
)

func msg(t *testing.T, body bson.D, seqs ...recording.Sequence) recording.Message {
	t.Helper()
	b, err := bson.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return recording.Message{Op: recording.OpMsg, Body: b, Sequences: seqs}
}

func raw(t *testing.T, d bson.D) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type D = bson.D
type E = bson.E
type A = bson.A

func TestShapes(t *testing.T) {
	lsid := D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}
	cases := []struct {
		name string
		m    recording.Message
		want string
	}{
		{"find: values become types, implicit $eq",
			msg(t, D{{Key: "find", Value: "orders"}, {Key: "filter", Value: D{{Key: "status", Value: "A"}, {Key: "qty", Value: D{{Key: "$gt", Value: 5}}}}},
				{Key: "sort", Value: D{{Key: "qty", Value: -1}}}, {Key: "projection", Value: D{{Key: "_id", Value: 0}, {Key: "qty", Value: 1}}}, {Key: "limit", Value: 10},
				{Key: "lsid", Value: lsid}, {Key: "$db", Value: "shop"}}),
			`{"cmdNs":{"db":"shop","coll":"orders"},"command":"find","filter":{"status":{"$eq":"?string"},"qty":{"$gt":"?number"}},"sort":{"qty":-1},"projection":{"_id":0,"qty":1},"limit":"?number"}`},
		{"find: $in and $or, arrays by their elements' type",
			msg(t, D{{Key: "find", Value: "orders"}, {Key: "filter", Value: D{{Key: "$or", Value: A{D{{Key: "sku", Value: D{{Key: "$in", Value: A{"a", "b"}}}}}, D{{Key: "tags", Value: A{1, "x"}}}, D{{Key: "n", Value: D{{Key: "$nin", Value: A{}}}}}}}}}, {Key: "$db", Value: "shop"}}),
			`{"cmdNs":{"db":"shop","coll":"orders"},"command":"find","filter":{"$or":[{"sku":{"$in":"?array<?string>"}},{"tags":{"$eq":"?array<>"}},{"n":{"$nin":"[]"}}]}}`},
		{"find: $elemMatch, $not, $regex with its options",
			msg(t, D{{Key: "find", Value: "c"}, {Key: "filter", Value: D{{Key: "items", Value: D{{Key: "$elemMatch", Value: D{{Key: "sku", Value: "x"}, {Key: "q", Value: D{{Key: "$gte", Value: 2}}}}}}}, {Key: "name", Value: D{{Key: "$regex", Value: "^ab"}, {Key: "$options", Value: "i"}}}, {Key: "d", Value: D{{Key: "$not", Value: D{{Key: "$lt", Value: 3.5}}}}}}}, {Key: "$db", Value: "db"}}),
			`{"cmdNs":{"db":"db","coll":"c"},"command":"find","filter":{"items":{"$elemMatch":{"sku":{"$eq":"?string"},"q":{"$gte":"?number"}}},"name":{"$regex":"?string","$options":"i"},"d":{"$not":{"$lt":"?number"}}}}`},
		{"aggregate: $match shaped, paths kept, literals typed, $limit typed",
			msg(t, D{{Key: "aggregate", Value: "orders"}, {Key: "pipeline", Value: A{
				D{{Key: "$match", Value: D{{Key: "status", Value: "A"}}}},
				D{{Key: "$group", Value: D{{Key: "_id", Value: "$cust"}, {Key: "total", Value: D{{Key: "$sum", Value: D{{Key: "$multiply", Value: A{"$qty", 1.1}}}}}}, {Key: "n", Value: D{{Key: "$sum", Value: 1}}}}}},
				D{{Key: "$sort", Value: D{{Key: "total", Value: -1}}}},
				D{{Key: "$limit", Value: 5}},
				D{{Key: "$lookup", Value: D{{Key: "from", Value: "customers"}, {Key: "localField", Value: "_id"}, {Key: "foreignField", Value: "_id"}, {Key: "as", Value: "c"}}}},
			}}, {Key: "cursor", Value: D{{Key: "batchSize", Value: 7}}}, {Key: "$db", Value: "shop"}}),
			`{"cmdNs":{"db":"shop","coll":"orders"},"command":"aggregate","pipeline":[{"$match":{"status":{"$eq":"?string"}}},{"$group":{"_id":"$cust","total":{"$sum":{"$multiply":["$qty","?number"]}},"n":{"$sum":1}}},{"$sort":{"total":-1}},{"$limit":"?number"},{"$lookup":{"from":"customers","localField":"_id","foreignField":"_id","as":"c"}}]}`},
		{"update in a document sequence: statements of one shape once",
			msg(t, D{{Key: "update", Value: "orders"}, {Key: "ordered", Value: true}, {Key: "txnNumber", Value: int64(4)}, {Key: "$db", Value: "shop"}},
				recording.Sequence{Identifier: "updates", Documents: []bson.Raw{
					raw(t, D{{Key: "q", Value: D{{Key: "_id", Value: 1}}}, {Key: "u", Value: D{{Key: "$set", Value: D{{Key: "paid", Value: true}}}, {Key: "$inc", Value: D{{Key: "v", Value: 1}}}}}, {Key: "upsert", Value: false}}),
					raw(t, D{{Key: "q", Value: D{{Key: "_id", Value: 2}}}, {Key: "u", Value: D{{Key: "$set", Value: D{{Key: "paid", Value: false}}}, {Key: "$inc", Value: D{{Key: "v", Value: 5}}}}}, {Key: "upsert", Value: false}}),
				}}),
			`{"cmdNs":{"db":"shop","coll":"orders"},"command":"update","updates":[{"q":{"_id":{"$eq":"?number"}},"u":{"$set":{"paid":"?bool"},"$inc":{"v":"?number"}},"upsert":false}]}`},
		{"insert: the documents are no part of the shape",
			msg(t, D{{Key: "insert", Value: "orders"}, {Key: "$db", Value: "shop"}}, recording.Sequence{Identifier: "documents", Documents: []bson.Raw{raw(t, D{{Key: "_id", Value: 1}})}}),
			`{"cmdNs":{"db":"shop","coll":"orders"},"command":"insert"}`},
		{"getMore: the namespace, not the cursor",
			msg(t, D{{Key: "getMore", Value: int64(8812312)}, {Key: "collection", Value: "orders"}, {Key: "batchSize", Value: 7}, {Key: "$db", Value: "shop"}}),
			`{"cmdNs":{"db":"shop","coll":"orders"},"command":"getMore"}`},
		{"a command on no collection",
			msg(t, D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}),
			`{"cmdNs":{"db":"admin"},"command":"ping"}`},
		{"$expr: paths and operators stay",
			msg(t, D{{Key: "find", Value: "c"}, {Key: "filter", Value: D{{Key: "$expr", Value: D{{Key: "$gt", Value: A{"$spent", D{{Key: "$multiply", Value: A{"$budget", 2}}}}}}}}}, {Key: "$db", Value: "d"}}),
			`{"cmdNs":{"db":"d","coll":"c"},"command":"find","filter":{"$expr":{"$gt":["$spent",{"$multiply":["$budget","?number"]}]}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ok := Of(c.m)
			if !ok {
				t.Fatal("no shape")
			}
			if got := s.Key(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestEqualShapesDifferentValues(t *testing.T) {
	a, _ := Of(msg(t, D{{Key: "find", Value: "o"}, {Key: "filter", Value: D{{Key: "s", Value: "A"}, {Key: "q", Value: D{{Key: "$gt", Value: 5}}}}}, {Key: "$db", Value: "x"}}))
	b, _ := Of(msg(t, D{{Key: "find", Value: "o"}, {Key: "filter", Value: D{{Key: "s", Value: "B"}, {Key: "q", Value: D{{Key: "$gt", Value: int64(70)}}}}}, {Key: "lsid", Value: D{{Key: "id", Value: 1}}}, {Key: "$db", Value: "x"}}))
	c, _ := Of(msg(t, D{{Key: "find", Value: "o"}, {Key: "filter", Value: D{{Key: "s", Value: "B"}, {Key: "q", Value: D{{Key: "$lt", Value: 70}}}}}, {Key: "$db", Value: "x"}}))
	d, _ := Of(msg(t, D{{Key: "find", Value: "o"}, {Key: "filter", Value: D{{Key: "s", Value: 1}, {Key: "q", Value: D{{Key: "$gt", Value: 70}}}}}, {Key: "$db", Value: "x"}}))
	if a.Key() != b.Key() {
		t.Errorf("same shape, different values: %s vs %s", a.Key(), b.Key())
	}
	if a.Key() == c.Key() || a.Key() == d.Key() {
		t.Error("a different operator or a different type gave the same shape")
	}
}

func TestNoShapeForReplies(t *testing.T) {
	m := msg(t, D{{Key: "ok", Value: 1}})
	m.Header.ResponseTo = 4
	if _, ok := Of(m); ok {
		t.Error("a reply has a shape")
	}
}

func TestTallyCountsPerShape(t *testing.T) {
	var tl Tally
	for i := range 5 {
		s, _ := Of(msg(t, D{{Key: "find", Value: "o"}, {Key: "filter", Value: D{{Key: "_id", Value: i}}}, {Key: "$db", Value: "x"}}))
		tl.Add(s)
	}
	s, _ := Of(msg(t, D{{Key: "insert", Value: "o"}, {Key: "$db", Value: "x"}}))
	tl.Add(s)
	top := tl.Top(0)
	if tl.Total() != 6 || tl.Len() != 2 || len(top) != 2 || top[0].Requests != 5 || top[0].Shape.Command != "find" || top[1].Requests != 1 {
		t.Fatalf("total %d, %d shapes, top %+v", tl.Total(), tl.Len(), top)
	}
	if got := tl.Top(1); len(got) != 1 || got[0].Shape.Command != "find" {
		t.Errorf("Top(1) = %+v", got)
	}
}
