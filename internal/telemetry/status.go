package telemetry

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Status is one serverStatus reply.
type Status struct {
	// Time is the midpoint between sending the command and receiving the
	// reply, on the client's clock.
	Time time.Time `bson:"t" json:"t"`
	// Doc is the full reply as plain Go values; nil when the sample failed.
	Doc map[string]any `bson:"doc,omitempty" json:"doc,omitempty"`
	// Source is empty for the serverStatus command's reply, SourceFTDC
	// for a sample of the server's diagnostic data (only the sections the
	// figures read).
	Source string `bson:"source,omitempty" json:"source,omitempty"`
	// Lags is each secondary's replication lag in seconds at the sample
	// (ReplicationLags), by member host:port; nil outside a replica set
	// or when it was not read.
	Lags map[string]float64 `bson:"lags,omitempty" json:"lags,omitempty"`
	// States is each member's replica set state at the sample
	// (MemberStates: 1 primary, 2 secondary, ...), by member host:port;
	// nil outside a replica set or when it was not read.
	States map[string]int64 `bson:"states,omitempty" json:"states,omitempty"`
}

// ServerStatus runs {serverStatus: 1} on the admin database and returns the
// whole reply converted to plain Go values.
func ServerStatus(ctx context.Context, c *mongo.Client) (Status, error) {
	sent := time.Now()
	raw, err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		return Status{}, fmt.Errorf("serverStatus: %w", err)
	}
	got := time.Now()
	doc, err := plainDoc(raw)
	if err != nil {
		return Status{}, fmt.Errorf("serverStatus reply: %w", err)
	}
	return Status{Time: sent.Add(got.Sub(sent) / 2), Doc: doc}, nil
}

// ReplSetGetStatus runs {replSetGetStatus: 1} on the admin database and
// returns each secondary's replication lag (ReplicationLags) and each
// member's state (MemberStates).
func ReplSetGetStatus(ctx context.Context, c *mongo.Client) (map[string]float64, map[string]int64, error) {
	raw, err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Raw()
	if err != nil {
		return nil, nil, fmt.Errorf("replSetGetStatus: %w", err)
	}
	return ReplicationLags(raw), MemberStates(raw), nil
}

// plainDoc converts a BSON document into nested map[string]any, []any,
// int64, float64, string, bool, time.Time and nil values, which marshal
// cleanly to both BSON and JSON.
func plainDoc(raw bson.Raw) (map[string]any, error) {
	elems, err := raw.Elements()
	if err != nil {
		return nil, fmt.Errorf("read document: %w", err)
	}
	doc := make(map[string]any, len(elems))
	for _, e := range elems {
		v, err := plainValue(e.Value())
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", e.Key(), err)
		}
		doc[e.Key()] = v
	}
	return doc, nil
}

func plainArray(arr bson.RawArray) ([]any, error) {
	vals, err := arr.Values()
	if err != nil {
		return nil, fmt.Errorf("read array: %w", err)
	}
	out := make([]any, len(vals))
	for i, rv := range vals {
		if out[i], err = plainValue(rv); err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return out, nil
}

// plainValue converts one BSON value. Types without a plain Go
// counterpart become their nearest readable form: an ObjectID its hex
// string, a Timestamp {t, i}, a Decimal128 its decimal string.
func plainValue(rv bson.RawValue) (any, error) {
	switch rv.Type {
	case bson.TypeEmbeddedDocument:
		return plainDoc(rv.Document())
	case bson.TypeArray:
		return plainArray(rv.Array())
	case bson.TypeDouble:
		return rv.Double(), nil
	case bson.TypeInt32:
		return int64(rv.Int32()), nil
	case bson.TypeInt64:
		return rv.Int64(), nil
	case bson.TypeString:
		return rv.StringValue(), nil
	case bson.TypeBoolean:
		return rv.Boolean(), nil
	case bson.TypeDateTime:
		return rv.Time().UTC(), nil
	case bson.TypeNull, bson.TypeUndefined:
		return nil, nil
	}
	return otherValue(rv), nil
}

func otherValue(rv bson.RawValue) any {
	switch rv.Type {
	case bson.TypeObjectID:
		return rv.ObjectID().Hex()
	case bson.TypeTimestamp:
		t, i := rv.Timestamp()
		return map[string]any{"t": int64(t), "i": int64(i)}
	case bson.TypeBinary:
		_, data := rv.Binary()
		return data
	case bson.TypeDecimal128:
		return rv.Decimal128().String()
	}
	return rv.String()
}
