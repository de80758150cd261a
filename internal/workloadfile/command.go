package workloadfile

// Verb is the server command an operation sends.
func (o *Op) Verb() string {
	switch o.Kind {
	case "find", "findOne":
		return "find"
	case "aggregate":
		return "aggregate"
	case "insertOne", "insertMany":
		return "insert"
	case "deleteOne", "deleteMany":
		return "delete"
	}
	return "update"
}

// Multi says whether a write may change several documents (updateMany,
// deleteMany): such writes are not retryable.
func (o *Op) Multi() bool { return o.Kind == "updateMany" || o.Kind == "deleteMany" }

// AppendCommand appends the elements of the operation's command, values
// filled in, to a document the caller started: the verb and its
// collection, then its arguments as a driver sends them (findOne is a
// find of one document in a single batch; an insert's, update's or
// delete's statements are arrays in the command, where a driver may send
// them as a document sequence). The caller adds $db,
// the session and the concerns. Call g.Begin(o) first.
func (o *Op) AppendCommand(dst []byte, g *Gen) []byte {
	dst = appendString(header(dst, typeString, o.Verb()), o.Coll.Name)
	switch o.Kind {
	case "find", "findOne":
		dst = o.Filter.Append(header(dst, typeDocument, "filter"), g)
		dst = o.optional(dst, "sort", o.Sort, g)
		dst = o.optional(dst, "projection", o.Projection, g)
		dst = o.hint(dst)
		if o.Skip > 0 {
			dst = AppendInt64Element(dst, "skip", o.Skip)
		}
		if o.Kind == "findOne" {
			dst = AppendInt64Element(dst, "limit", 1)
			dst = appendBool(header(dst, typeBool, "singleBatch"), true)
		} else if o.Limit > 0 {
			dst = AppendInt64Element(dst, "limit", o.Limit)
		}
	case "aggregate":
		dst = o.Pipeline.Append(header(dst, typeArray, "pipeline"), g)
		dst = append(header(dst, typeDocument, "cursor"), 5, 0, 0, 0, 0)
		if o.AllowDiskUse {
			dst = appendBool(header(dst, typeBool, "allowDiskUse"), true)
		}
		dst = o.hint(dst)
	case "insertOne", "insertMany":
		dst = appendBool(header(dst, typeBool, "ordered"), o.Ordered)
		at, d := startDoc(header(dst, typeArray, "documents"))
		dst = d
		for i := range o.Documents(g) {
			dst = o.AppendDocument(header(dst, typeDocument, arrayKey(i)), g)
		}
		dst = endDoc(dst, at)
	case "deleteOne", "deleteMany":
		dst = appendBool(header(dst, typeBool, "ordered"), true)
		at, d := startDoc(header(dst, typeArray, "deletes"))
		st, d := startDoc(header(d, typeDocument, "0"))
		d = o.Filter.Append(header(d, typeDocument, "q"), g)
		limit := int32(1)
		if o.Multi() {
			limit = 0
		}
		d = appendInt32(header(d, typeInt32, "limit"), limit)
		d = o.hint(d)
		dst = endDoc(endDoc(d, st), at)
	default: // updates
		dst = appendBool(header(dst, typeBool, "ordered"), true)
		at, d := startDoc(header(dst, typeArray, "updates"))
		st, d := startDoc(header(d, typeDocument, "0"))
		d = o.Filter.Append(header(d, typeDocument, "q"), g)
		d = o.AppendUpdate(d, "u", g)
		d = appendBool(header(d, typeBool, "upsert"), o.Upsert)
		d = appendBool(header(d, typeBool, "multi"), o.Multi())
		d = o.hint(d)
		dst = endDoc(endDoc(d, st), at)
	}
	return dst
}

// AppendDocument appends the document an insert writes: its own, else
// its collection's.
func (o *Op) AppendDocument(dst []byte, g *Gen) []byte {
	if o.Document != nil {
		return o.Document.Append(dst, g)
	}
	return g.Doc(dst, o.Coll)
}

// AppendReplacement appends a replaceOne's replacement: its own, else a
// new document of its collection without an _id (a replacement keeps
// the _id of the document it replaces).
func (o *Op) AppendReplacement(dst []byte, g *Gen) []byte {
	if o.Replacement != nil {
		return o.Replacement.Append(dst, g)
	}
	return o.Coll.noID.Append(dst, g)
}

// withoutID returns a document template without its _id field.
func withoutID(t *Template) *Template {
	switch n := t.n.(type) {
	case *docNode:
		d := &docNode{}
		for _, f := range n.fields {
			if f.key != "_id" {
				d.fields = append(d.fields, f)
			}
		}
		return &Template{n: d}
	case *literal:
		at, dst := startDoc(nil)
		body := n.raw[4 : len(n.raw)-1]
		for len(body) > 0 {
			end := 1
			for body[end] != 0 {
				end++
			}
			size := valueLen(body[0], body[end+1:])
			if key := string(body[1:end]); key != "_id" {
				dst = append(dst, body[:end+1+size]...)
			}
			body = body[end+1+size:]
		}
		return &Template{n: &literal{t: typeDocument, raw: endDoc(dst, at)}}
	case *choiceGen, *sampleGen:
		return &Template{n: shapesWithoutID(n)}
	}
	return t
}

// AppendUpdate appends an update's or replacement's element key: the
// update document, the update pipeline, or the replacement.
func (o *Op) AppendUpdate(dst []byte, key string, g *Gen) []byte {
	switch {
	case o.Kind == "replaceOne":
		return o.AppendReplacement(header(dst, typeDocument, key), g)
	case o.Update.IsArray():
		return o.Update.Append(header(dst, typeArray, key), g)
	}
	return o.Update.Append(header(dst, typeDocument, key), g)
}

func (o *Op) optional(dst []byte, key string, t *Template, g *Gen) []byte {
	if t == nil {
		return dst
	}
	return t.Append(header(dst, typeDocument, key), g)
}

func (o *Op) hint(dst []byte) []byte {
	if o.Hint == nil {
		return dst
	}
	return append(header(dst, o.HintType, "hint"), o.Hint...)
}
