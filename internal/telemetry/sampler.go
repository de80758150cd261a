package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/connect"
)

// Sample is one tick of a Sampler.
type Sample struct {
	// Time is when the tick fired.
	Time time.Time `bson:"t" json:"t"`
	// Status is the serverStatus reply; its Doc is nil when the server is
	// not sampled or the sample failed.
	Status Status `bson:"status" json:"status"`
	// Host is nil when the server's host is not observed.
	Host *HostSample `bson:"host,omitempty" json:"host,omitempty"`
	// Err says why parts of the sample are missing.
	Err error `bson:"-" json:"-"`
	// Mark is set on a host-only sample taken at a phase boundary (see
	// Sampler.Mark); series of the server's figures pass over it.
	Mark bool `bson:"-" json:"-"`
}

// Sampler samples serverStatus, and the server's host when it can see it,
// at a fixed interval on its own goroutine and its own client connection,
// so that the benchmark's connection pool is left alone. When the host's
// reader also gives the server's status (DiagnosticData: the server's own
// FTDC sample), one call a tick gives both, at the same instant, and no
// serverStatus is sent.
type Sampler struct {
	uri  string
	host HostReader

	// ReplicaSet, when set before Start, adds to each serverStatus sample
	// the secondaries' replication lag and the members' states from
	// replSetGetStatus (a sample of the server's diagnostic data carries
	// its own).
	ReplicaSet bool

	client *mongo.Client
	parent context.Context // the caller's, for the steps after a stop
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	samples []Sample
	// Samples are thinned to one per grain (from origin) once more than
	// keep are held; keep 0 holds every sample.
	keep   int
	origin time.Time
	grain  time.Duration

	// OnSample, when set before Start, is called on the sampler's
	// goroutine with the interval's server and host figures each time a
	// sample closes one (from the sample before it); a figure it could
	// not derive is absent.
	OnSample func(Figures)
	last     *Sample
}

// NewSampler returns a sampler of the server at uri (none when uri is
// empty) and of host (none when host is nil, e.g. a remote server).
func NewSampler(uri string, host HostReader) *Sampler {
	return &Sampler{uri: uri, host: host}
}

// Start takes a first sample before it returns, then one every interval
// on its own goroutine until ctx ends or Stop is called. A sample that
// fails is recorded with its failed parts missing, and sampling continues.
func (s *Sampler) Start(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		return fmt.Errorf("sampling interval %v: must be positive", every)
	}
	if s.done != nil {
		return errors.New("sampler already started")
	}
	if _, both := s.host.(StatusSource); s.uri != "" && !both {
		c, err := connect.Open(s.uri, connect.Settings{AppName: "mongobench-telemetry"})
		if err != nil {
			return fmt.Errorf("connect sampler: %w", err)
		}
		s.client = c
	}
	s.parent = ctx
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	first := s.take(ctx, every)
	s.record(first)
	s.last = &first
	go s.run(ctx, every)
	return nil
}

// Stop ends sampling, closes the sampler's connection and returns every
// sample taken, oldest first.
func (s *Sampler) Stop() []Sample {
	if s.done == nil {
		return nil
	}
	s.cancel()
	<-s.done
	if s.client != nil {
		ctx, cancel := bounded.Step(s.parent, 5*time.Second)
		_ = s.client.Disconnect(ctx) // the samples are complete; a slow close changes nothing
		cancel()
		s.client = nil
	}
	return s.Snapshot()
}

// Snapshot returns a copy of the samples taken so far.
func (s *Sampler) Snapshot() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sample(nil), s.samples...)
}

// Mark reads the host at once and records it as a sample stamped at, the
// boundary of a phase, so that a phase shorter than the sampling interval
// still has host figures over its own span. It does nothing when the host
// is not observed; it does not query the server. After the caller's
// context ends (Ctrl-C) the reading gets bounded.Grace.
func (s *Sampler) Mark(at time.Time) {
	if s.host == nil {
		return
	}
	parent := s.parent
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := bounded.Step(parent, 5*time.Second)
	defer cancel()
	hs, err := readHost(ctx, s.host)
	s.record(Sample{Time: at, Host: &hs, Err: err, Mark: true})
}

func (s *Sampler) run(ctx context.Context, every time.Duration) {
	defer close(s.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		smp := s.take(ctx, every)
		if ctx.Err() != nil {
			return // a sample cut short by Stop is not a missing sample
		}
		s.record(smp)
		s.report(smp)
	}
}

// report calls OnSample with the figures of the interval smp closes.
func (s *Sampler) report(smp Sample) {
	prev := s.last
	s.last = &smp
	if s.OnSample == nil || prev == nil {
		return
	}
	s.OnSample(FigureOf(*prev, smp))
}

// record keeps a sample, its serverStatus compacted to what the figures
// read (CompactStatus), thinning the samples held when there are more
// than the bound (Bound).
func (s *Sampler) record(smp Sample) {
	smp.Status.Doc = CompactStatus(smp.Status.Doc)
	s.mu.Lock()
	s.samples = append(s.samples, smp)
	if s.keep > 0 && len(s.samples) > s.keep && s.grain > 0 {
		s.samples = Thin(s.samples, s.origin, s.grain)
	}
	s.mu.Unlock()
}

// Bound holds at most about keep samples: past it, the samples are
// thinned to one per grain counted from origin (the length of the
// intervals the run's document keeps; see merge.Ladder). Called as the
// grain grows; safe while the sampler runs.
func (s *Sampler) Bound(keep int, origin time.Time, grain time.Duration) {
	s.mu.Lock()
	s.keep, s.origin, s.grain = keep, origin, grain
	if len(s.samples) > keep {
		s.samples = Thin(s.samples, origin, grain)
	}
	s.mu.Unlock()
}

// StatusSource is a host reader that gives the server's status with each
// reading, from one sample of the server (DiagnosticData).
type StatusSource interface {
	Sample(ctx context.Context) (Status, HostSample, error)
}

// take reads the server and the host once, giving the server at most
// timeout to answer.
func (s *Sampler) take(ctx context.Context, timeout time.Duration) Sample {
	smp := Sample{Time: time.Now()}
	if src, ok := s.host.(StatusSource); ok {
		sctx, cancel := context.WithTimeout(ctx, timeout)
		st, hs, err := src.Sample(sctx)
		cancel()
		smp.Status, smp.Host, smp.Err = st, &hs, err
		return smp
	}
	var errs []error
	if s.client != nil {
		sctx, cancel := context.WithTimeout(ctx, timeout)
		st, err := ServerStatus(sctx, s.client)
		if err == nil && s.ReplicaSet {
			st.Lags, st.States, err = ReplSetGetStatus(sctx, s.client)
		}
		cancel()
		smp.Status = st
		errs = append(errs, err)
	}
	if s.host != nil {
		hs, err := readHost(ctx, s.host)
		smp.Host = &hs
		errs = append(errs, err)
	}
	smp.Err = errors.Join(errs...)
	return smp
}

// readHost reads the host, within ctx when the reader can stop early (a
// node exporter over HTTP; /proc answers at once).
func readHost(ctx context.Context, h HostReader) (HostSample, error) {
	if r, ok := h.(interface {
		ReadContext(context.Context) (HostSample, error)
	}); ok {
		return r.ReadContext(ctx)
	}
	return h.Read()
}
