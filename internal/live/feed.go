package live

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// Feed is what /live answers: this process's runs, oldest first (at most
// the last 32), each with the intervals closed so far.
type Feed struct {
	Runs []RunFeed `json:"runs"`
}

// RunFeed is one run of the feed.
type RunFeed struct {
	RunID    string    `json:"runId"`
	Test     string    `json:"test"`
	Label    string    `json:"label,omitempty"`
	Workload string    `json:"workload,omitempty"`
	Step     string    `json:"step,omitempty"`
	Started  time.Time `json:"started"`
	// Running is true until the run's measured phase has ended; its
	// stored document is then the whole result.
	Running   bool           `json:"running"`
	Intervals []FeedInterval `json:"intervals"`
}

// FeedInterval is one closed interval: the stored document's interval
// fields (without histograms and the server's samples) and the live-only
// figures.
type FeedInterval struct {
	result.Interval
	// SendLagP99 is the interval's send-lag p99 in milliseconds (open
	// loop; absent when nothing was sent).
	SendLagP99 *float64 `json:"sendLagP99Ms,omitempty"`
	// TargetRate is the schedule's rate in the interval (open loop).
	TargetRate *float64 `json:"targetRate,omitempty"`
	InFlight   int64    `json:"inFlightPeak"`
}

// Feed returns a copy of the feed.
func (p *Publisher) Feed() Feed {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := Feed{Runs: make([]RunFeed, len(p.runs))}
	for i, r := range p.runs {
		f.Runs[i] = *r
		f.Runs[i].Intervals = append([]FeedInterval(nil), r.Intervals...)
	}
	return f
}

// Find returns the run of the feed with the given id.
func (f Feed) Find(runID string) (RunFeed, bool) {
	for _, r := range f.Runs {
		if r.RunID == runID {
			return r, true
		}
	}
	return RunFeed{}, false
}

func (p *Publisher) serveFeed(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(p.Feed())
}
