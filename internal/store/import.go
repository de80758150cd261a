package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// A FileImport is a JSON Lines results file checked for `results
// import` (CheckImports): every run line decoded and its identity
// checked, every line of its records file (RecordsPath) checked, none
// kept, so a file of any size is checked, and then imported, in constant
// memory.
type FileImport struct {
	Path string
	// Runs are the file's run lines; Records the full-resolution records
	// the import carries: those of runs whose documents hold their
	// intervals coarsened as they ran (the records of others are in their
	// documents already).
	Runs, Records int
	// Warnings say what of the records file will not be imported:
	// records of runs the file does not hold coarsened, and coarsened
	// runs without a record.
	Warnings []string
	coarse   map[string]bool
}

// CheckImports checks each file (CheckImport), every file before any is
// used: one bad file fails them all.
func CheckImports(ctx context.Context, paths []string) ([]*FileImport, error) {
	out := make([]*FileImport, len(paths))
	for i, p := range paths {
		var err error
		if out[i], err = CheckImport(ctx, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CheckImport reads a results file and its records file line by line
// and checks every line, keeping only which runs' records to carry; it
// stops at the line it reads when ctx ends.
func CheckImport(ctx context.Context, path string) (*FileImport, error) {
	fi := &FileImport{Path: path, coarse: map[string]bool{}}
	err := eachOf(path, path, false, func(line int, b []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := decodeLine(b, path, line)
		if err == nil {
			err = CheckIdentity(&d)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		fi.Runs++
		if d.Resolution != nil {
			fi.coarse[d.RunID] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	perRun := map[string]int{}
	others, otherIDs := 0, []string{}
	err = eachRecord(path, func(runID string, _ bson.Raw) error {
		if fi.coarse[runID] {
			fi.Records++
			perRun[runID]++
		} else {
			others++
			if len(otherIDs) < 3 && !slices.Contains(otherIDs, runID) {
				otherIDs = append(otherIDs, runID)
			}
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	if others > 0 {
		fi.Warnings = append(fi.Warnings, fmt.Sprintf("%s: %d records name runs this file does not hold with coarsened intervals (such as %s): they are not imported",
			RecordsPath(path), others, strings.Join(otherIDs, ", ")))
	}
	for _, id := range slices.Sorted(maps.Keys(fi.coarse)) {
		if perRun[id] == 0 {
			fi.Warnings = append(fi.Warnings, fmt.Sprintf("run %s holds its intervals coarsened and %s has none of its full-resolution records: it is imported without them", id, RecordsPath(path)))
		}
	}
	return fi, nil
}

// Into imports the checked file into m: first the records it carries,
// in batches of at most recordBatch of one run (each run's first batch
// replacing any records stored before, so a file imported twice stores
// them once), then its runs in file order, each handed to done with its
// outcome.
func (fi *FileImport) Into(ctx context.Context, m Importer, done func(d *result.Doc, out Outcome)) error {
	// A run's records are contiguous in a file one run wrote at a time:
	// a run's batch is written when it is full or another run's record
	// comes, so at most one batch is held whatever the file holds.
	var batch []bson.Raw
	var batchRun string
	started := map[string]bool{}
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := m.ImportRecords(ctx, batchRun, batch, !started[batchRun])
		started[batchRun], batch = true, batch[:0]
		return err
	}
	err := eachRecord(fi.Path, func(runID string, rec bson.Raw) error {
		if !fi.coarse[runID] {
			return nil
		}
		if runID != batchRun {
			if err := flush(); err != nil {
				return err
			}
			batchRun = runID
		}
		if batch = append(batch, rec); len(batch) == recordBatch {
			return flush()
		}
		return ctx.Err()
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	return eachOf(fi.Path, fi.Path, false, func(line int, b []byte) error {
		d, err := decodeLine(b, fi.Path, line)
		if err != nil {
			return err
		}
		out, err := m.Import(ctx, &d)
		if err != nil {
			return err
		}
		done(&d, out)
		return ctx.Err()
	})
}

// eachOf hands fn each line of the file at path that is a record (the
// records file's lines) or not (a results file's runs), numbered from 1;
// a file that does not exist has none.
func eachOf(path, name string, records bool, fn func(line int, b []byte) error) error {
	file, err := bounded.Open(path)
	if errors.Is(err, fs.ErrNotExist) && records {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read results: %w", err)
	}
	defer func() { _ = file.Close() }() // read only
	limit := bounded.ImportFile
	if records {
		limit = bounded.RecordsFile
	}
	_, _, err = eachLine(bounded.Reader(file, path, limit), name, 0, 0, func(line int, _ int64, b []byte) error {
		if isRecord(b) != records {
			return nil
		}
		return fn(line, b)
	})
	return err
}

// eachRecord hands fn each record of a results file's records file, in
// file order, checked: a run id and a kind this tool writes.
func eachRecord(results string, fn func(runID string, rec bson.Raw) error) error {
	path := RecordsPath(results)
	return eachOf(path, path, true, func(line int, b []byte) error {
		var rec struct {
			Run recordMeta `bson:"run"`
		}
		var raw bson.Raw
		if err := bson.UnmarshalExtJSON(bytes.TrimSpace(b), false, &raw); err != nil {
			return fmt.Errorf("%s:%d: not a full-resolution record: %w", path, line, err)
		}
		if err := bson.Unmarshal(raw, &rec); err != nil || rec.Run.RunID == "" || (rec.Run.Kind != kindInterval && rec.Run.Kind != kindTelemetry) {
			return fmt.Errorf("%s:%d: not a full-resolution record: want run.id and run.kind %q or %q", path, line, kindInterval, kindTelemetry)
		}
		if rec.Run.Kind == kindInterval {
			if err := checkHistograms(raw); err != nil {
				return fmt.Errorf("%s:%d: run %s's interval: %w", path, line, rec.Run.RunID, err)
			}
		}
		return fn(rec.Run.RunID, raw)
	})
}

// checkHistograms decodes an interval record's histograms: one that
// does not decode is refused at import rather than by rebuild later.
func checkHistograms(raw bson.Raw) error {
	var iv intervalRecord
	if err := bson.Unmarshal(raw, &iv); err != nil {
		return fmt.Errorf("not an interval: %w", err)
	}
	for _, op := range iv.Ops {
		for _, d := range []struct {
			what string
			dist result.Dist
		}{{"latency", op.Latency}, {"service time", op.Service}} {
			if d.dist.Hist == "" {
				continue
			}
			if _, err := hist.Decode(d.dist.Hist); err != nil {
				return fmt.Errorf("%s %s histogram: %w: want the encoded histogram this tool writes", op.Name, d.what, err)
			}
		}
	}
	return nil
}
