package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/spec"
)

// MarkerCollection holds the document that marks a database as created by
// mongobench. The tool writes, resets and drops only in marked databases.
const MarkerCollection = "_mongobench"

// ErrNotOwned is returned for a database that mongobench did not create.
var ErrNotOwned = errors.New("database was not created by mongobench")

// Claim makes db the tool's own: an empty (or absent) database gets the
// marker; a database with collections but no marker is refused, whatever
// its name, and a reserved name (the results database, admin, local,
// config) is refused whatever it holds.
func Claim(ctx context.Context, db *mongo.Database) error {
	if err := spec.CheckDataDatabase(db.Name()); err != nil {
		return fmt.Errorf("refusing to write to %q: %w", db.Name(), err)
	}
	owned, names, err := ownership(ctx, db)
	if err != nil || owned {
		return err
	}
	if len(names) > 0 {
		return fmt.Errorf("database %q holds %d collections and no mongobench marker: %w; choose another --database",
			db.Name(), len(names), ErrNotOwned)
	}
	marker := bson.D{{Key: "_id", Value: "owner"}, {Key: "tool", Value: "mongobench"}, {Key: "createdAt", Value: time.Now().UTC()}}
	if _, err := db.Collection(MarkerCollection).InsertOne(ctx, marker); err != nil && !mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("mark database %q: %w", db.Name(), err)
	}
	return nil
}

// DropOwned drops db, only if it carries the marker and its name is not
// reserved: the results database is never dropped, even one that a
// version without this check marked.
func DropOwned(ctx context.Context, db *mongo.Database) error {
	if err := spec.CheckDataDatabase(db.Name()); err != nil {
		return fmt.Errorf("refusing to drop %q: %w", db.Name(), err)
	}
	owned, names, err := ownership(ctx, db)
	if err != nil {
		return err
	}
	if !owned {
		if len(names) == 0 {
			return nil // nothing there
		}
		return fmt.Errorf("refusing to drop %q: %w", db.Name(), ErrNotOwned)
	}
	if err := db.Drop(ctx); err != nil {
		return fmt.Errorf("drop database %q: %w", db.Name(), err)
	}
	return nil
}

// ResetCollection drops one collection of an owned database whose name
// is not reserved.
func ResetCollection(ctx context.Context, db *mongo.Database, name string) error {
	if err := spec.CheckDataDatabase(db.Name()); err != nil {
		return fmt.Errorf("refusing to reset %s.%s: %w", db.Name(), name, err)
	}
	owned, _, err := ownership(ctx, db)
	if err != nil {
		return err
	}
	if !owned {
		return fmt.Errorf("refusing to reset %s.%s: %w", db.Name(), name, ErrNotOwned)
	}
	if err := db.Collection(name).Drop(ctx); err != nil {
		return fmt.Errorf("reset %s.%s: %w", db.Name(), name, err)
	}
	return nil
}

func ownership(ctx context.Context, db *mongo.Database) (owned bool, names []string, err error) {
	names, err = db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return false, nil, fmt.Errorf("list collections of %q: %w", db.Name(), err)
	}
	n, err := db.Collection(MarkerCollection).CountDocuments(ctx, bson.D{{Key: "tool", Value: "mongobench"}})
	if err != nil {
		return false, nil, fmt.Errorf("read marker of %q: %w", db.Name(), err)
	}
	return n > 0, names, nil
}
