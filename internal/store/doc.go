// Package store keeps result documents: in a MongoDB results collection
// (latest run per test and variant, replaced on re-run) with an
// append-only history collection beside it, or in a JSON Lines file.
//
// It only ever inserts and replaces result documents; it never drops a
// collection or a database.
package store
