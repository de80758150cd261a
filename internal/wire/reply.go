package wire

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Each calls f with every element of doc, in order, without allocating;
// it stops early when f returns false.
func Each(doc []byte, f func(e bsoncore.Element) bool) {
	if len(doc) < 5 {
		return
	}
	rem := doc[4 : len(doc)-1]
	for len(rem) > 0 {
		e, rest, ok := bsoncore.ReadElement(rem)
		if !ok || !f(e) {
			return
		}
		rem = rest
	}
}

// Field returns the value of the top-level field key of doc.
func Field(doc []byte, key string) (bsoncore.Value, bool) {
	var v bsoncore.Value
	found := false
	Each(doc, func(e bsoncore.Element) bool {
		if string(e.KeyBytes()) == key {
			v, found = e.Value(), true
			return false
		}
		return true
	})
	return v, found
}

// Count returns the number of elements of a document or array.
func Count(doc []byte) int {
	n := 0
	Each(doc, func(bsoncore.Element) bool { n++; return true })
	return n
}

// truthy reads a numeric or boolean value as a boolean.
func truthy(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeBoolean:
		return v.Boolean()
	case bsoncore.TypeDouble, bsoncore.TypeInt32, bsoncore.TypeInt64:
		f, _ := v.AsFloat64OK()
		return f != 0
	}
	return false
}

// Int reads a numeric value as an int64 (0 when it is none).
func Int(v bsoncore.Value) int64 {
	n, _ := v.AsInt64OK()
	return n
}

// checkReply returns the *Error a reply carries, or nil.
func checkReply(doc bsoncore.Document) error {
	ok, failed := false, false
	Each(doc, func(e bsoncore.Element) bool {
		switch string(e.KeyBytes()) {
		case "ok":
			ok = truthy(e.Value())
		case "writeErrors", "writeConcernError":
			failed = true
		}
		return true
	})
	if ok && !failed {
		return nil
	}
	return replyError(doc, ok)
}

// replyError builds the error of a failed reply (the slow path).
func replyError(doc bsoncore.Document, ok bool) *Error {
	e := &Error{}
	var wce bsoncore.Document
	Each(doc, func(el bsoncore.Element) bool {
		v := el.Value()
		switch key := string(el.KeyBytes()); key {
		case "code", "codeName", "errmsg", "errorLabels":
			e.setField(key, v)
		case "writeErrors":
			arr, _ := v.ArrayOK()
			Each(arr, func(w bsoncore.Element) bool {
				d, _ := w.Value().DocumentOK()
				var we WriteError
				Each(d, func(f bsoncore.Element) bool {
					switch string(f.KeyBytes()) {
					case "index":
						we.Index = int32(Int(f.Value()))
					case "code":
						we.Code = int32(Int(f.Value()))
					case "errmsg":
						we.Message, _ = f.Value().StringValueOK()
					}
					return true
				})
				e.WriteErrors = append(e.WriteErrors, we)
				return true
			})
		case "writeConcernError":
			wce, _ = v.DocumentOK()
		}
		return true
	})
	if ok && len(e.WriteErrors) == 0 && wce != nil {
		e.WriteConcern = true
		e.Code, e.CodeName, e.Message = 0, "", ""
		Each(wce, func(f bsoncore.Element) bool {
			e.setField(string(f.KeyBytes()), f.Value())
			return true
		})
	}
	if ok && len(e.WriteErrors) > 0 {
		e.Code, e.CodeName, e.Message = 0, "", ""
	}
	return e
}

func appendStrings(dst []string, v bsoncore.Value) []string {
	arr, _ := v.ArrayOK()
	Each(arr, func(e bsoncore.Element) bool {
		if s, ok := e.Value().StringValueOK(); ok {
			dst = append(dst, s)
		}
		return true
	})
	return dst
}

// Cursor is the first batch or next batch of a find or getMore reply.
type Cursor struct {
	ID    int64
	Batch bsoncore.Array // the batch array, valid until the next RoundTrip
}

// ReadCursor reads the cursor of a find or getMore reply.
func ReadCursor(reply bsoncore.Document) (Cursor, bool) {
	var cur Cursor
	v, ok := Field(reply, "cursor")
	if !ok {
		return cur, false
	}
	d, ok := v.DocumentOK()
	if !ok {
		return cur, false
	}
	Each(d, func(e bsoncore.Element) bool {
		switch string(e.KeyBytes()) {
		case "id":
			cur.ID = Int(e.Value())
		case "firstBatch", "nextBatch":
			cur.Batch, _ = e.Value().ArrayOK()
		}
		return true
	})
	return cur, true
}

// setField reads one of the fields a command error and a write concern
// error share: code, codeName, errmsg, errorLabels; others are ignored.
func (e *Error) setField(key string, v bsoncore.Value) {
	switch key {
	case "code":
		e.Code = int32(Int(v))
	case "codeName":
		e.CodeName, _ = v.StringValueOK()
	case "errmsg":
		e.Message, _ = v.StringValueOK()
	case "errorLabels":
		e.Labels = appendStrings(e.Labels, v)
	}
}
