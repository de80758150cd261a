// Package workloadfile reads a workload file: the collections a
// benchmark seeds (their document shapes and indexes) and the weighted
// mix of named operations it measures, written as BSON-shaped YAML whose
// generated values carry YAML tags (!int, !fake, !key, …). Parse checks a
// file strictly before anything runs, each problem located by
// file:line:column; the checked File generates documents and operation
// parts as BSON, into buffers the caller reuses, with its own small BSON
// encoder (the package is pure: it imports no driver). Check prints what
// a file would send, without a server.
//
// Tags mark generators rather than reserved keys (genny's ^RandomInt,
// SimRunner's %-prefixed keys): a tag lives outside the document's data,
// so no field name or MongoDB operator ($inc, $match, a "%"-prefixed
// field) can ever be read as a generator, and a generator can never be
// sent as a field by mistake: an unknown tag is an error.
package workloadfile
