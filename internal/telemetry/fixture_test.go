package telemetry

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// loadStatus reads a Status recorded as Extended JSON in testdata.
func loadStatus(t *testing.T, name string) Status {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		T   time.Time `bson:"t"`
		Doc bson.Raw  `bson:"doc"`
	}
	if err := bson.UnmarshalExtJSON(data, false, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	doc, err := plainDoc(f.Doc)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return Status{Time: f.T, Doc: doc}
}
