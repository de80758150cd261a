package workload

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/tag"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/wire"
	"github.com/mongobench/mongobench/internal/workloadfile"
)

// A workload file's transactions, bulkWrites, findOneAnd*, counts and
// distincts, and the driver's forms of its concerns.

// txnDo runs a transaction of the file to its final commit, as the
// drivers' withTransaction does (txnCounts.run), its steps through the
// driver on the worker's session; the values the steps share were drawn
// once, before the first attempt, and stay across the retries.
func (t *fileTask) txnDo(ctx context.Context, o *fileOp) error {
	x := o.txn
	x.sess = t.sess
	return t.txns.run(ctx, x, func(sctx context.Context) error {
		for i := range o.steps {
			if err := t.driverDo(sctx, &o.steps[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// fileTxnOptions are a transaction's read and write concerns (none
// given: the connection string's).
func fileTxnOptions(op *workloadfile.Op) *options.TransactionOptionsBuilder {
	o := options.Transaction()
	if op.ReadConcern != "" {
		o.SetReadConcern(&readconcern.ReadConcern{Level: op.ReadConcern})
	}
	if op.WriteConcern != nil {
		o.SetWriteConcern(driverWriteConcern(op.WriteConcern))
	}
	return o
}

func driverWriteConcern(wc *workloadfile.WriteConcern) *writeconcern.WriteConcern {
	dwc := &writeconcern.WriteConcern{W: wc.W, Journal: wc.J}
	if n, ok := wc.W.(int64); ok {
		dwc.W = int(n)
	}
	return dwc
}

func driverReadPref(rp *workloadfile.ReadPreference) *readpref.ReadPref {
	mode, _ := readpref.ModeFromString(rp.Mode)
	var opts []readpref.Option
	if rp.TagSets != nil {
		sets := make([]tag.Set, len(rp.TagSets))
		for i, s := range rp.TagSets {
			for _, tg := range s {
				sets[i] = append(sets[i], tag.Tag{Name: tg.Name, Value: tg.Value})
			}
		}
		opts = append(opts, readpref.WithTagSets(sets...))
	}
	if rp.MaxStaleness > 0 {
		opts = append(opts, readpref.WithMaxStaleness(rp.MaxStaleness))
	}
	p, err := readpref.New(mode, opts...)
	if err != nil { // the file's check refuses what New refuses
		panic(fmt.Sprintf("read preference %+v: %v", rp, err))
	}
	return p
}

// update is an update's document or pipeline, for the driver, built in
// the task's buffer.
func (t *fileTask) update(op *workloadfile.Op) any {
	t.ubuf = op.Update.Append(t.ubuf[:0], t.g)
	if op.Update.IsArray() {
		return rawArray(t.ubuf)
	}
	return bson.Raw(t.ubuf)
}

// driverMore sends a count, distinct, findOneAnd* or bulkWrite through
// the driver.
func (t *fileTask) driverMore(ctx context.Context, o *fileOp, filter bson.Raw) error {
	op := o.op
	switch op.Kind {
	case "count":
		opts := options.Count()
		if op.Skip > 0 {
			opts.SetSkip(op.Skip)
		}
		if op.Limit > 0 {
			opts.SetLimit(op.Limit)
		}
		if o.hint != nil {
			opts.SetHint(o.hint)
		}
		_, err := o.coll.CountDocuments(ctx, filter, opts)
		if err == nil {
			t.docs.Add(1)
		}
		return err
	case "distinct":
		opts := options.Distinct()
		if o.hint != nil {
			opts.SetHint(o.hint)
		}
		res := o.coll.Distinct(ctx, op.Key, filter, opts)
		if err := res.Err(); err != nil {
			return err
		}
		raw, err := res.Raw()
		if err != nil {
			return err
		}
		vals, _ := bsoncore.Array(raw).Values()
		t.docs.Add(int64(len(vals)))
		return nil
	case "bulkWrite":
		return t.driverBulk(ctx, o)
	}
	return t.findAndModify(ctx, o, filter)
}

func (t *fileTask) findAndModify(ctx context.Context, o *fileOp, filter bson.Raw) error {
	op := o.op
	after := options.Before
	if op.ReturnNew {
		after = options.After
	}
	var res *mongo.SingleResult
	switch op.Kind {
	case "findOneAndUpdate":
		opts := options.FindOneAndUpdate().SetUpsert(op.Upsert).SetReturnDocument(after)
		setReadShape(opts, o)
		res = o.coll.FindOneAndUpdate(ctx, filter, t.update(op), opts)
	case "findOneAndReplace":
		opts := options.FindOneAndReplace().SetUpsert(op.Upsert).SetReturnDocument(after)
		setReadShape(opts, o)
		t.ubuf = op.AppendReplacement(t.ubuf[:0], t.g)
		res = o.coll.FindOneAndReplace(ctx, filter, bson.Raw(t.ubuf), opts)
	default:
		opts := options.FindOneAndDelete()
		setReadShape(opts, o)
		res = o.coll.FindOneAndDelete(ctx, filter, opts)
	}
	switch err := res.Err(); {
	case errors.Is(err, mongo.ErrNoDocuments):
		return nil
	case err != nil:
		return err
	}
	t.docs.Add(1)
	return nil
}

// setReadShape sets an operation's sort, projection and hint on the
// driver's options builder of a find, findOne or findOneAnd*.
func setReadShape[B interface {
	SetSort(any) B
	SetProjection(any) B
	SetHint(any) B
}](opts B, o *fileOp) {
	if o.sort != nil {
		opts.SetSort(o.sort)
	}
	if o.proj != nil {
		opts.SetProjection(o.proj)
	}
	if o.hint != nil {
		opts.SetHint(o.hint)
	}
}

// driverBulk sends a bulkWrite as the driver's client-level BulkWrite.
func (t *fileTask) driverBulk(ctx context.Context, o *fileOp) error {
	op, g := o.op, t.g
	writes := make([]mongo.ClientBulkWrite, len(o.writes))
	for i := range o.writes {
		w := &o.writes[i]
		m := w.op
		var filter bson.Raw
		if m.Filter != nil {
			filter = bson.Raw(m.Filter.Append(nil, g))
		}
		var model mongo.ClientWriteModel
		switch m.Kind {
		case "insertOne":
			model = mongo.NewClientInsertOneModel().SetDocument(bson.Raw(m.AppendDocument(nil, g)))
		case "updateOne":
			u := mongo.NewClientUpdateOneModel().SetFilter(filter).SetUpdate(updateOf(m, g)).SetUpsert(m.Upsert)
			if w.hint != nil {
				u.SetHint(w.hint)
			}
			model = u
		case "updateMany":
			u := mongo.NewClientUpdateManyModel().SetFilter(filter).SetUpdate(updateOf(m, g)).SetUpsert(m.Upsert)
			if w.hint != nil {
				u.SetHint(w.hint)
			}
			model = u
		case "replaceOne":
			r := mongo.NewClientReplaceOneModel().SetFilter(filter).SetReplacement(bson.Raw(m.AppendReplacement(nil, g))).SetUpsert(m.Upsert)
			if w.hint != nil {
				r.SetHint(w.hint)
			}
			model = r
		case "deleteOne":
			d := mongo.NewClientDeleteOneModel().SetFilter(filter)
			if w.hint != nil {
				d.SetHint(w.hint)
			}
			model = d
		default:
			d := mongo.NewClientDeleteManyModel().SetFilter(filter)
			if w.hint != nil {
				d.SetHint(w.hint)
			}
			model = d
		}
		writes[i] = mongo.ClientBulkWrite{Database: t.db, Collection: m.Coll.Name, Model: model}
	}
	opts := options.ClientBulkWrite().SetOrdered(op.Ordered)
	if op.WriteConcern != nil {
		opts.SetWriteConcern(driverWriteConcern(op.WriteConcern))
	}
	_, err := t.client.BulkWrite(ctx, writes, opts)
	return err
}

// updateOf is a model's update document or pipeline, for the driver.
func updateOf(m *workloadfile.Op, g *workloadfile.Gen) any {
	u := m.Update.Append(nil, g)
	if m.Update.IsArray() {
		return rawArray(u)
	}
	return bson.Raw(u)
}

// bulkErrors returns the errors a bulkWrite's reply reports (nErrors;
// with errorsOnly its cursor holds only them) as a *wire.Error of its
// write errors; nil when none failed.
func (t *fileTask) bulkErrors(ctx context.Context, reply bsoncore.Document) error {
	v, ok := wire.Field(reply, "nErrors")
	if !ok || wire.Int(v) == 0 {
		return nil
	}
	e := &wire.Error{Message: fmt.Sprintf("bulkWrite: %d writes failed", wire.Int(v))}
	cur, _ := wire.ReadCursor(reply)
	wire.Each(cur.Batch, func(el bsoncore.Element) bool {
		d, _ := el.Value().DocumentOK()
		var we wire.WriteError
		wire.Each(d, func(f bsoncore.Element) bool {
			switch string(f.KeyBytes()) {
			case "idx":
				we.Index = int32(wire.Int(f.Value()))
			case "code":
				we.Code = int32(wire.Int(f.Value()))
			case "errmsg":
				we.Message, _ = f.Value().StringValueOK()
			}
			return true
		})
		e.WriteErrors = append(e.WriteErrors, we)
		return true
	})
	if cur.ID != 0 { // more errors than a batch: they are not read
		wc := wireColl{conn: t.wire.conn, db: "admin", coll: "$cmd.bulkWrite"}
		_ = wc.killCursor(ctx, cur.ID)
	}
	return e
}
