package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/chromium"
	"github.com/mongobench/mongobench/internal/testsupport/ftdcwrite"
)

var ftdcT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// ftdcDir writes an FTDC directory of a mongod (MongoDB 8.0's names when
// v8) sampled every second from t0 for n seconds, in two archive files
// and an interim file, chunks of 50 samples: 1,000 inserts a second,
// 2,000 in the seconds of burst (and the disk writing 200 MB then,
// 4 MB otherwise), a checkpoint running in the seconds of ckpt (the
// sample closing second sec says it runs) that completes in 1,500 ms the
// second after the first of them, 25% host CPU.
func ftdcDir(t *testing.T, t0 time.Time, n int, v8 bool, burst, ckpt func(sec int) bool) string {
	t.Helper()
	s := ftdcwrite.State{V8: v8, CacheMax: 1 << 30, CacheUsed: 512 << 20, Tickets: 128, TicketsOut: 2, Connections: 12,
		NumCPUs: 2, MemTotalKB: 8 << 20, MemAvailableKB: 4 << 20, Reads: 100, ReadSectors: 1 << 20}
	var samples []bson.D
	for i := range n {
		samples = append(samples, ftdcwrite.Sample(t0.Add(time.Duration(i)*time.Second), s))
		sec := i + 1 // the second the next sample closes
		ins, mb := int64(1000), int64(4)
		if burst(sec) {
			ins, mb = 2000, 200
		}
		s.Inserts += ins
		s.WriteOps += ins
		s.WriteMicros += ins * 300
		s.Checkpointing = ckpt(sec)
		if !s.Checkpointing && ckpt(sec-1) && s.Checkpoints == 0 {
			s.Checkpoints++
			s.CheckpointMs = 1500
		}
		s.UserMs += 500
		s.IdleMs += 1500
		s.Writes += mb * 25
		s.WriteSectors += mb << 20 / 512
		s.WriteMs += mb * 25
		s.IOTimeMs += 100
	}
	dir := t.TempDir()
	third := n / 3
	parts := [][]bson.D{samples[:third], samples[third : 2*third], samples[2*third:]}
	for i, p := range parts {
		name := "metrics.interim"
		if i < 2 {
			name = "metrics." + t0.Add(time.Duration(i*third)*time.Second).Format("2006-01-02T15-04-05Z") + "-00000"
		}
		data := ftdcwrite.File(ftdcwrite.Metadata(s), p, 49)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func never(int) bool                { return false }
func checkpoint20to22(sec int) bool { return sec >= 20 && sec <= 22 }

type ftdcSummary struct {
	From, To  time.Time
	Versions  []string `json:"serverVersions"`
	Samples   int
	Intervals int
	Figures   []struct {
		Name                  string
		Values                int
		Min, Median, P99, Max *float64
	}
}

func (s ftdcSummary) figure(t *testing.T, name string) (n int, v [4]float64) {
	t.Helper()
	for _, f := range s.Figures {
		if f.Name == name {
			if f.Min == nil {
				return f.Values, v
			}
			return f.Values, [4]float64{*f.Min, *f.Median, *f.P99, *f.Max}
		}
	}
	t.Fatalf("no figure %q", name)
	return 0, v
}

// `mongobench ftdc` summarises a window of an FTDC directory: the
// window, the version, the samples, and each figure's min, median, p99
// and max, as a table and as JSON; --metric keeps the figures named.
func TestFTDCSummary(t *testing.T) {
	burst := func(sec int) bool { return sec == 40 }
	dir := ftdcDir(t, ftdcT0, 120, true, burst, checkpoint20to22)
	o := mb(t, "ftdc", dir, "--json")
	wantCode(t, o, cli.ExitOK)
	var s ftdcSummary
	if err := json.Unmarshal([]byte(o.stdout), &s); err != nil {
		t.Fatalf("%v\n%s", err, o.stdout)
	}
	if s.Samples != 120 || s.Intervals != 119 || !s.From.Equal(ftdcT0) || !s.To.Equal(ftdcT0.Add(119*time.Second)) ||
		!slices.Equal(s.Versions, []string{"8.0.4"}) {
		t.Fatalf("window %+v", s)
	}
	for _, c := range []struct {
		name string
		n    int
		want [4]float64
	}{
		// 118 seconds at 1,000 inserts, one at 2,000: the p99 (rank
		// 118 of 119) is still 1,000.
		{"inserts", 119, [4]float64{1000, 1000, 1000, 2000}},
		{"write latency", 119, [4]float64{0.3, 0.3, 0.3, 0.3}},
		{"disk writes", 119, [4]float64{4, 4, 4, 200}},
		{"checkpoint running", 119, [4]float64{0, 0, 1, 1}},
		{"checkpoint duration", 1, [4]float64{1500, 1500, 1500, 1500}},
		{"tickets out", 119, [4]float64{2, 2, 2, 2}},
		{"cache fill", 119, [4]float64{50, 50, 50, 50}},
		{"host CPU user", 119, [4]float64{25, 25, 25, 25}},
		{"read latency", 0, [4]float64{}}, // no reads: missing, not zero
	} {
		n, got := s.figure(t, c.name)
		for i := range got {
			if n != c.n || got[i] < c.want[i]-1e-9 || got[i] > c.want[i]+1e-9 {
				t.Errorf("%s: %d values %v, want %d values %v", c.name, n, got, c.n, c.want)
				break
			}
		}
	}

	// A window inside the files, and two figures.
	o = mb(t, "ftdc", dir, "--from", "2026-03-01T12:00:30Z", "--to", "2026-03-01T12:00:50", "--metric", "disk writes", "--metric", "inserts")
	wantCode(t, o, cli.ExitOK)
	for _, want := range []string{
		"window: 2026-03-01 12:00:30 UTC to 2026-03-01 12:00:50 UTC (20s)",
		"server version: 8.0.4", "samples: 21 (20 intervals)",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, o.stdout)
		}
	}
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	if n := len(lines); n < 3 || !strings.HasPrefix(lines[n-2], "inserts ") ||
		!strings.HasPrefix(lines[n-1], "disk writes ") || !strings.HasSuffix(lines[n-1], "200") || !strings.HasPrefix(lines[n-3], "figure ") {
		t.Errorf("want the two figures' rows:\n%s", o.stdout)
	}
}

// Bad input ends in one line naming what is wrong and what is valid,
// exit 2.
func TestFTDCBadInput(t *testing.T) {
	dir := ftdcDir(t, ftdcT0, 20, false, never, never)
	cut := t.TempDir()
	data, err := os.ReadFile(filepath.Join(dir, "metrics.interim"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cut, "metrics.interim"), data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ftdc", t.TempDir()}, "no metrics.* files"},
		{[]string{"ftdc", "/dev/zero"}, "/dev/zero: a device, not a regular file"},
		{[]string{"ftdc", dir, "--from", "yesterday"}, `--from: "yesterday" is not valid: want a time such as`},
		{[]string{"ftdc", dir, "--metric", "disk"}, `--metric: "disk" is not a figure; valid: operations, inserts`},
	} {
		o := mb(t, c.args...)
		wantCode(t, o, cli.ExitUsage)
		if line := errorLine(t, o, false); !strings.Contains(line, c.want) {
			t.Errorf("%v: %q, want %q in it", c.args, line, c.want)
		}
	}
	// A torn file (cut inside a document) is read up to its torn
	// document, and the summary says where it ends early.
	o := mb(t, "ftdc", cut)
	wantCode(t, o, cli.ExitOK)
	if want := "file torn: " + filepath.Join(cut, "metrics.interim") + ": ends early at byte "; !strings.Contains(o.stdout, want) {
		t.Errorf("torn file: want %q in\n%s", want, o.stdout)
	}
}

// The window's page opens in headless Chromium with no error and no
// request beyond itself, its charts drawn with their series, the
// checkpoint shaded, the legend and hover working.
func TestFTDCPageInBrowser(t *testing.T) {
	browser := chromium.Start(t)
	dir := ftdcDir(t, ftdcT0, 90, false, func(sec int) bool { return sec == 40 }, checkpoint20to22)
	page := filepath.Join(t.TempDir(), "window.html")
	o := mb(t, "ftdc", dir, "--html", page)
	wantCode(t, o, cli.ExitOK)
	r := browser.Open(t, page)
	if len(r.Errors) > 0 || len(r.Requests) > 0 {
		t.Fatalf("errors %v, requests %v", r.Errors, r.Requests)
	}
	// The page answers first: what stands out (the headline) and the
	// first chart within the first screen (1400 × 900), the table after.
	if r.HeadlineTop < 0 || r.HeadlineTop >= chromium.ScreenHeight || r.FirstChartTop < 0 || r.FirstChartTop >= chromium.ScreenHeight {
		t.Errorf("what stands out starts at %.0f px, the first chart at %.0f px: want both within the first screen (%d px)", r.HeadlineTop, r.FirstChartTop, chromium.ScreenHeight)
	}
	shots := screenshotDir
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(shots, "ftdc.png"), r.FirstScreen, 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"operations/s":      {"operations", "inserts", "queries", "updates"},
		"disk MB/s":         {"disk reads", "disk writes"},
		"tickets and queue": {"tickets out", "tickets", "operations queued"},
	}
	seen := map[string]bool{}
	for _, c := range r.Charts {
		if c.Width == 0 || c.Height == 0 {
			t.Errorf("chart %q not drawn (%d×%d)", c.Title, c.Width, c.Height)
		}
		if w, ok := want[c.Title]; ok {
			seen[c.Title] = true
			if !slices.Equal(c.Series, w) {
				t.Errorf("chart %q: series %v, want %v", c.Title, c.Series, w)
			}
		}
	}
	if len(seen) != len(want) {
		t.Errorf("charts %+v: want %v among them", r.Charts, want)
	}
	if err := browser.Interact(t, page); err != nil {
		t.Error(err)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if i, j, k := strings.Index(string(html), "What stands out"), strings.Index(string(html), "the longest checkpoint: 1500 ms from 2026-03-01 12:00:21 UTC (the window&#39;s only checkpoint)"), strings.Index(string(html), "<table"); i < 0 || j < i || k < j {
		t.Error("the page does not open with what stands out (the checkpoint of 1.5 s from 12:00:21), before the table")
	}
	if !strings.Contains(string(html), `"shade":[[19,22]]`) {
		t.Error("the checkpoint's seconds are not shaded")
	}
}

// An 8.0 mongos writes its samples in the role-split layout (its
// serverStatus under router, systemMetrics under common, buildInfo under
// the metadata's common): `mongobench ftdc` reads the router's figures
// and the version, and says they are the router's.
func TestFTDCMongosRoleSplit(t *testing.T) {
	s := ftdcwrite.State{V8: true, Split: "router", Version: "8.0.8", Connections: 40, NumCPUs: 2, MemTotalKB: 8 << 20, MemAvailableKB: 4 << 20}
	var samples []bson.D
	for i := range 30 {
		samples = append(samples, ftdcwrite.Sample(ftdcT0.Add(time.Duration(i)*time.Second), s))
		s.Queries += 500
		s.ReadOps += 500
		s.ReadMicros += 500 * 2000
		s.UserMs += 1000
		s.IdleMs += 1000
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "metrics.2026-03-01T12-00-00Z-00000"), ftdcwrite.File(ftdcwrite.Metadata(s), samples, 299), 0o644); err != nil {
		t.Fatal(err)
	}
	o := mb(t, "ftdc", dir, "--metric", "queries", "--metric", "read latency", "--metric", "host CPU user")
	wantCode(t, o, cli.ExitOK)
	for _, want := range []string{"server version: 8.0.8", "figures from: mongos router (8.0's role-split layout", "samples: 30 (29 intervals)"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, o.stdout)
		}
	}
	o = mb(t, "ftdc", dir, "--json")
	wantCode(t, o, cli.ExitOK)
	var sum ftdcSummary
	if err := json.Unmarshal([]byte(o.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want float64
	}{{"queries", 500}, {"read latency", 2}, {"host CPU user", 50}} {
		n, got := sum.figure(t, c.name)
		if n != 29 || got[0] != c.want || got[3] != c.want {
			t.Errorf("%s: %d values %v, want 29 of %v", c.name, n, got, c.want)
		}
	}
}

// Issue 35's FTDC inputs: samples at one time are samples of the window
// that make no interval; a sample in year 1 is shown at its time, and
// --to 0001-01-01T00:00:00Z is a bound; `run --ftdc /dev/zero` is
// refused before the run, with no server reached.
func TestFTDCHostileTimes(t *testing.T) {
	s := ftdcwrite.State{V8: true}
	write := func(times ...time.Time) string {
		var samples []bson.D
		for _, at := range times {
			samples = append(samples, ftdcwrite.Sample(at, s))
			s.Inserts += 1000
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "metrics.interim"), ftdcwrite.File(nil, samples, 299), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	same := make([]time.Time, 10)
	for i := range same {
		same[i] = ftdcT0
	}
	o := mb(t, "ftdc", write(same...))
	wantCode(t, o, cli.ExitOK)
	for _, want := range []string{"window: 2026-03-01 12:00:00 UTC to 2026-03-01 12:00:00 UTC (0s)",
		"samples: 1 (0 intervals); 9 more at or before the previous sample's time, no interval"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("samples at one time: output lacks %q:\n%s", want, o.stdout)
		}
	}

	year1 := time.Time{}
	dir := write(year1, year1.Add(time.Second), ftdcT0)
	o = mb(t, "ftdc", dir)
	wantCode(t, o, cli.ExitOK)
	if want := "window: 0001-01-01 00:00:00 UTC to 2026-03-01 12:00:00 UTC"; !strings.Contains(o.stdout, want) {
		t.Errorf("a year-1 sample: output lacks %q:\n%s", want, o.stdout)
	}
	o = mb(t, "ftdc", dir, "--to", "0001-01-01T00:00:00Z")
	wantCode(t, o, cli.ExitOK)
	if want := "samples: 1 (0 intervals)"; !strings.Contains(o.stdout, want) {
		t.Errorf("--to year 1: output lacks %q (the bound is a bound):\n%s", want, o.stdout)
	}

	o = mb(t, "run", "--uri", "mongodb://127.0.0.1:1", "--ops", "10", "--ftdc", "/dev/zero")
	wantCode(t, o, cli.ExitUsage)
	if msg := errorLine(t, o, false); !strings.Contains(msg, "--ftdc: /dev/zero: a device, not a regular file") {
		t.Errorf("run --ftdc /dev/zero: %q, want it refused before the run", msg)
	}
}
