package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/result"
)

// A run's summary is what a list of runs shows and filters on: its
// identity (run id, test, label, tags, group), when it ran and
// for how long, its state, its workload and mode, its target and achieved
// rates, and each operation type's name, count and p99 latency. A list
// of a store of years of runs reads summaries, never whole documents.
var summaryFields = []string{
	"runId", "testName", "label", "tags", "repetition", "start", "end", "duration", "partial", "partialReason",
	"live", "group.id", "group.clientIndex", "test_config.workload",
	"schedule.mode", "schedule.targetRate", "schedule.achievedRate", "schedule.successRate", "schedule.failedRate",
	"ops.name", "ops.count", "ops.latency.p99Ms",
}

// summaryProjection reads a document's summaryFields.
func summaryProjection() bson.D {
	proj := make(bson.D, len(summaryFields))
	for i, f := range summaryFields {
		proj[i] = bson.E{Key: f, Value: 1}
	}
	return proj
}

// Summary is d reduced to its summary (summaryFields), as a MongoDB
// store's projection reads it.
func Summary(d *result.Doc) result.Doc {
	s := result.Doc{
		RunID: d.RunID, TestName: d.TestName, Label: d.Label, Tags: d.Tags, Repetition: d.Repetition,
		Start: d.Start, End: d.End, Duration: d.Duration, Partial: d.Partial, PartialReason: d.PartialReason,
		Live: d.Live,
		Schedule: result.Schedule{Mode: d.Schedule.Mode, TargetRate: d.Schedule.TargetRate, AchievedRate: d.Schedule.AchievedRate,
			SuccessRate: d.Schedule.SuccessRate, FailedRate: d.Schedule.FailedRate},
	}
	if w, ok := d.TestConfig["workload"]; ok {
		s.TestConfig = map[string]any{"workload": w}
	}
	if g := d.Group; g != nil {
		s.Group = &result.Group{ID: g.ID, ClientIndex: g.ClientIndex}
	}
	for _, op := range d.Ops {
		s.Ops = append(s.Ops, result.OpStats{Name: op.Name, Count: op.Count, Latency: result.Dist{P99: op.Latency.P99}})
	}
	return s
}

// fileIndex is what a results file holds, read once and extended as the
// file grows (a results file is only appended to): each run's summary
// and where its line is, so a list reads no line again and a run's page
// reads its one line.
type fileIndex struct {
	size    int64
	lines   int // read so far, blank ones included
	mod     time.Time
	entries []fileEntry
}

type fileEntry struct {
	offset, length int64
	line           int
	summary        result.Doc
}

// fileIndexes are the indexes of the results files this process read.
var fileIndexes = struct {
	sync.Mutex
	byPath map[string]*fileIndex
}{byPath: map[string]*fileIndex{}}

// index is the file's index, brought up to date: extended by the lines
// appended since it was read, or read again when the file was replaced.
func (f File) index() (*fileIndex, error) {
	fileIndexes.Lock()
	defer fileIndexes.Unlock()
	file, err := bounded.Open(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &fileIndex{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer func() { _ = file.Close() }() // read only
	st, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	idx := fileIndexes.byPath[f.path]
	if idx == nil {
		idx = loadIndex(f.path, file, st.Size()) // another process's, when it still holds
	}
	switch {
	case idx != nil && st.Size() == idx.size && st.ModTime().Equal(idx.mod):
		return idx, nil
	case idx == nil || st.Size() < idx.size:
		idx = &fileIndex{}
	default:
		cp := *idx
		cp.entries = append([]fileEntry(nil), idx.entries...)
		idx = &cp
	}
	grew := idx.size != st.Size()
	if err := idx.read(file, f.path, st.Size()); err != nil {
		return nil, err
	}
	idx.mod = st.ModTime()
	fileIndexes.byPath[f.path] = idx
	if grew {
		saveIndex(f.path, file, idx)
	}
	return idx, nil
}

// read indexes the lines from idx.size to size.
func (idx *fileIndex) read(file *os.File, path string, size int64) error {
	if _, err := file.Seek(idx.size, io.SeekStart); err != nil {
		return fmt.Errorf("read results: %w", err)
	}
	r := bounded.Reader(io.LimitReader(file, size-idx.size), path, bounded.ImportFile)
	end, lines, err := eachLine(r, path, idx.lines, idx.size, func(line int, offset int64, b []byte) error {
		if isRecord(b) {
			return nil
		}
		d, err := decodeLine(b, path, line)
		if err == nil {
			idx.entries = append(idx.entries, fileEntry{offset: offset, length: int64(len(b)), line: line, summary: Summary(&d)})
		}
		return err
	})
	idx.size, idx.lines = end, lines
	return err
}

// eachLine calls fn with each line of r that is not blank: its number
// (counted on from the after lines already read), its offset (counted on
// from at) and its bytes, newline included, each line at most
// bounded.ImportLine long. It returns the offset and the number of the
// last line read.
func eachLine(r io.Reader, path string, after int, at int64, fn func(line int, offset int64, b []byte) error) (int64, int, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	line := after
	for {
		b, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return at, line, fmt.Errorf("%s:%d: %w", path, line+1, err) // the line, or the file past its bound mid-line: never the cut line's decoding
		}
		if len(b) > 0 {
			line++
			if len(bytes.TrimSpace(b)) > 0 {
				if ferr := fn(line, at, b); ferr != nil {
					return at, line, ferr
				}
			}
			at += int64(len(b))
		}
		if err != nil {
			return at, line, nil
		}
	}
}

// readLine reads one line, its newline included, at most
// bounded.ImportLine long.
func readLine(r *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := r.ReadSlice('\n')
		out = append(out, chunk...)
		if int64(len(out)) > bounded.ImportLine.Max {
			return nil, fmt.Errorf("%w: %s can be at most %s (%s)", bounded.ErrTooLarge, bounded.ImportLine.What, bounded.Size(bounded.ImportLine.Max), bounded.ImportLine.Why)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return out, err
		}
	}
}

// decodeLine reads one line of a results file.
func decodeLine(b []byte, path string, line int) (result.Doc, error) {
	var s stored
	if err := bson.UnmarshalExtJSON(bytes.TrimSpace(b), false, &s); err != nil {
		return result.Doc{}, fmt.Errorf("%s:%d: not a result document: %w", path, line, err)
	}
	return s.doc(), nil
}

// lineAt reads the document of one indexed line.
func (f File) lineAt(e fileEntry) (*result.Doc, error) {
	line := e.line
	file, err := bounded.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer func() { _ = file.Close() }() // read only
	b := make([]byte, e.length)
	if _, err := file.ReadAt(b, e.offset); err != nil {
		return nil, fmt.Errorf("read results: %s:%d: %w", f.path, line, err)
	}
	d, err := decodeLine(b, f.path, line)
	return &d, err
}

// RunFilter selects runs by test, label, workload and tag (each, when
// given, must equal) and by start (From inclusive, To exclusive; zero:
// open).
type RunFilter struct {
	Test, Label, Workload, Tag string
	From, To                   time.Time
}

// matches reports whether the run's summary passes the filter.
func (f RunFilter) matches(d *result.Doc) bool {
	w, _ := d.TestConfig["workload"].(string)
	return (f.Test == "" || d.TestName == f.Test) && (f.Label == "" || d.Label == f.Label) &&
		(f.Workload == "" || w == f.Workload) && (f.Tag == "" || slices.Contains(d.Tags, f.Tag)) &&
		(f.From.IsZero() || !d.Start.Before(f.From)) && (f.To.IsZero() || d.Start.Before(f.To))
}

// Choices are the values each filter field takes over every stored run,
// sorted.
type Choices struct{ Tests, Labels, Workloads, Tags []string }

// RunList is one list of runs: the summaries (Summary) of the newest runs
// a filter selects, at most a limit of them, how many it selects and how
// many are stored, and the choices of every filter field.
type RunList struct {
	Runs []result.Doc
	// Matched counts the runs the filter selects, Total every stored run.
	Matched, Total int
	Choices        Choices
}

// ListRuns lists the runs f selects, newest first, at most limit (0:
// all), from the file's index.
func (f File) ListRuns(_ context.Context, rf RunFilter, limit int) (RunList, error) {
	idx, err := f.index()
	if err != nil {
		return RunList{}, err
	}
	all := make([]result.Doc, len(idx.entries))
	for i, e := range idx.entries {
		all[i] = e.summary
	}
	slices.SortStableFunc(all, func(a, b result.Doc) int { return b.Start.Compare(a.Start) })
	return listOf(all, rf, limit), nil
}

// listOf lists the summaries (newest first) rf selects, at most limit,
// with their count and every summary's choices.
func listOf(all []result.Doc, rf RunFilter, limit int) RunList {
	l := RunList{Total: len(all)}
	seen := [4]map[string]bool{{}, {}, {}, {}}
	add := func(k int, field *[]string, v string) {
		if v != "" && !seen[k][v] {
			seen[k][v] = true
			*field = append(*field, v)
		}
	}
	for i := range all {
		d := &all[i]
		w, _ := d.TestConfig["workload"].(string)
		add(0, &l.Choices.Tests, d.TestName)
		add(1, &l.Choices.Labels, d.Label)
		add(2, &l.Choices.Workloads, w)
		for _, t := range d.Tags {
			add(3, &l.Choices.Tags, t)
		}
		if !rf.matches(d) {
			continue
		}
		l.Matched++
		if limit == 0 || len(l.Runs) < limit {
			l.Runs = append(l.Runs, *d)
		}
	}
	l.Choices.sort()
	return l
}

func (c *Choices) sort() {
	for _, l := range [][]string{c.Tests, c.Labels, c.Workloads, c.Tags} {
		slices.Sort(l)
	}
}

// SummariesCollection holds one small document per run of the history,
// its summary (Summary) under its run id, written with the run: a list
// of years of runs reads it, never the history's whole documents.
const SummariesCollection = "summaries"

// ListRuns lists the runs f selects, newest first, at most limit (0:
// all), with their count and the choices, from the summaries. Until the
// summaries cover the history (a store written before they were kept,
// until a writer's first write completes them and marks them so), it
// reads the history with a projection instead.
func (m *Mongo) ListRuns(ctx context.Context, rf RunFilter, limit int) (RunList, error) {
	coll := m.db.Collection(SummariesCollection)
	complete, err := m.summariesComplete(ctx)
	if err != nil {
		return RunList{}, err
	}
	if !complete {
		coll = m.db.Collection(HistoryCollection)
	}
	proj := summaryProjection()
	runs := bson.D{{Key: "runId", Value: bson.D{{Key: "$exists", Value: true}}}}
	if complete {
		return m.listSummaries(ctx, coll, rf, limit)
	}
	cur, err := coll.Find(ctx, runs, options.Find().SetSort(bson.D{{Key: "start", Value: -1}}).SetProjection(proj))
	if err != nil {
		return RunList{}, fmt.Errorf("list runs: %w", err)
	}
	var rows []stored
	if err := cur.All(ctx, &rows); err != nil {
		return RunList{}, fmt.Errorf("list runs: %w", err)
	}
	all := make([]result.Doc, len(rows))
	for i := range rows {
		all[i] = rows[i].doc()
	}
	return listOf(all, rf, limit), nil
}

// listSummaries lists from the complete summaries on the server: the
// choices and the total in one $group (a distinct per field is several
// times slower on some servers), the count the filter matches, and one
// page of summaries, so a list of years of runs reads one page, not every
// summary.
func (m *Mongo) listSummaries(ctx context.Context, coll *mongo.Collection, rf RunFilter, limit int) (RunList, error) {
	runs := bson.D{{Key: "runId", Value: bson.D{{Key: "$exists", Value: true}}}}
	set := func(field string) bson.D { return bson.D{{Key: "$addToSet", Value: "$" + field}} }
	group := bson.D{{Key: "_id", Value: nil}, {Key: "tests", Value: set("testName")}, {Key: "labels", Value: set("label")},
		{Key: "workloads", Value: set("test_config.workload")}, {Key: "tags", Value: set("tags")}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: runs}}, {{Key: "$group", Value: group}}})
	if err != nil {
		return RunList{}, fmt.Errorf("list runs: the choices: %w", err)
	}
	var rows []struct {
		Tests, Labels, Workloads []any
		Tags                     [][]string
		N                        int
	}
	if err := cur.All(ctx, &rows); err != nil {
		return RunList{}, fmt.Errorf("list runs: the choices: %w", err)
	}
	var l RunList
	if len(rows) == 1 {
		r := rows[0]
		l.Total = r.N
		l.Choices.Tests, l.Choices.Labels, l.Choices.Workloads = texts(r.Tests), texts(r.Labels), texts(r.Workloads)
		for _, tags := range r.Tags {
			for _, t := range tags {
				if t != "" && !slices.Contains(l.Choices.Tags, t) {
					l.Choices.Tags = append(l.Choices.Tags, t)
				}
			}
		}
	}
	l.Choices.sort()
	filter := rf.filter(runs)
	l.Matched = l.Total
	if len(filter) > len(runs) {
		n, err := coll.CountDocuments(ctx, filter)
		if err != nil {
			return RunList{}, fmt.Errorf("list runs: %w", err)
		}
		l.Matched = int(n)
	}
	cur, err = coll.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "start", Value: -1}}).SetProjection(summaryProjection()).SetLimit(int64(limit)))
	if err != nil {
		return RunList{}, fmt.Errorf("list runs: %w", err)
	}
	var page []stored
	if err := cur.All(ctx, &page); err != nil {
		return RunList{}, fmt.Errorf("list runs: %w", err)
	}
	l.Runs = make([]result.Doc, len(page))
	for i := range page {
		l.Runs[i] = page[i].doc()
	}
	return l, nil
}

// texts are the non-empty strings of vals.
func texts(vals []any) []string {
	var out []string
	for _, v := range vals {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// filter is f as a query over summaries, added to base.
func (f RunFilter) filter(base bson.D) bson.D {
	out := slices.Clone(base)
	for _, e := range []struct{ key, value string }{{"testName", f.Test}, {"label", f.Label}, {"test_config.workload", f.Workload}, {"tags", f.Tag}} {
		if e.value != "" {
			out = append(out, bson.E{Key: e.key, Value: e.value})
		}
	}
	var start bson.D
	if !f.From.IsZero() {
		start = append(start, bson.E{Key: "$gte", Value: f.From})
	}
	if !f.To.IsZero() {
		start = append(start, bson.E{Key: "$lt", Value: f.To})
	}
	if start != nil {
		out = append(out, bson.E{Key: "start", Value: start})
	}
	return out
}

// summariesComplete reports whether the summaries cover the history: a
// writer that completed them (completeSummaries, on its first write)
// left their marker. Once seen, it is not asked again.
func (m *Mongo) summariesComplete(ctx context.Context) (bool, error) {
	c := m.summaries
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.complete {
		return true, nil
	}
	err := m.db.Collection(SummariesCollection).FindOne(ctx, bson.D{{Key: "_id", Value: summariesMarker}}).Err()
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("list runs: %w", err)
	}
	c.complete = true
	return true, nil
}

// summariesMarker is the _id of the document a writer leaves in the
// summaries once every run of the history has its summary.
const summariesMarker = "~complete"

// summaryState remembers whether the summaries were found complete.
type summaryState struct {
	mu       sync.Mutex
	complete bool
}

// putSummary writes d's summary.
func (m *Mongo) putSummary(ctx context.Context, d *result.Doc) error {
	s := Summary(d)
	if _, err := m.db.Collection(SummariesCollection).ReplaceOne(ctx, bson.D{{Key: "_id", Value: d.RunID}}, history(&s), options.Replace().SetUpsert(true)); err != nil {
		return fmt.Errorf("save run %s's summary: %w", d.RunID, err)
	}
	return nil
}

// completeSummaries writes the summary of every run of the history that
// has none (a store written before summaries were kept), once per store,
// on its first write.
func (m *Mongo) completeSummaries(ctx context.Context) error {
	have := map[string]bool{}
	cur, err := m.db.Collection(SummariesCollection).Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return fmt.Errorf("results store: read the run summaries: %w", err)
	}
	var ids []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &ids); err != nil {
		return fmt.Errorf("results store: read the run summaries: %w", err)
	}
	for _, id := range ids {
		have[id.ID] = true
	}
	proj := summaryProjection()
	cur, err = m.db.Collection(HistoryCollection).Find(ctx, bson.D{}, options.Find().SetProjection(proj))
	if err != nil {
		return fmt.Errorf("results store: summarise the history: %w", err)
	}
	defer func() { _ = cur.Close(ctx) }()
	for cur.Next(ctx) {
		var row stored
		if err := cur.Decode(&row); err != nil {
			return fmt.Errorf("results store: summarise the history: %w", err)
		}
		if d := row.doc(); !have[d.RunID] {
			if err := m.putSummary(ctx, &d); err != nil {
				return err
			}
		}
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("results store: summarise the history: %w", err)
	}
	_, err = m.db.Collection(SummariesCollection).ReplaceOne(ctx, bson.D{{Key: "_id", Value: summariesMarker}},
		bson.D{{Key: "_id", Value: summariesMarker}, {Key: "at", Value: time.Now().UTC()}}, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("results store: mark the run summaries complete: %w", err)
	}
	return nil
}

// readerIndexes are the history's indexes its readers use: the newest
// runs first (lists), a run by id or id prefix, a label's runs and a
// group's.
var readerIndexes = []bson.D{
	{{Key: "start", Value: -1}},
	{{Key: "runId", Value: 1}},
	{{Key: "label", Value: 1}, {Key: "start", Value: -1}},
	{{Key: "group.id", Value: 1}},
}

// ensureIndexes creates the readers' indexes, and the summaries of runs
// stored without one, once per store, on its first write (readers never
// write, not even an index).
func (m *Mongo) ensureIndexes(ctx context.Context) error {
	m.indexed.Do(func() {
		models := make([]mongo.IndexModel, len(readerIndexes))
		for i, k := range readerIndexes {
			models[i] = mongo.IndexModel{Keys: k}
		}
		if _, err := m.db.Collection(HistoryCollection).Indexes().CreateMany(ctx, models); err != nil {
			m.indexErr = fmt.Errorf("results store: index the history: %w", err)
			return
		}
		if _, err := m.db.Collection(SummariesCollection).Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "start", Value: -1}}}); err != nil {
			m.indexErr = fmt.Errorf("results store: index the run summaries: %w", err)
			return
		}
		m.indexErr = m.completeSummaries(ctx)
	})
	return m.indexErr
}
