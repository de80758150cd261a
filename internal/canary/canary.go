// Package canary measures how noisy the client's host is. A canary is a
// short, fixed set of probes (an integer loop, a walk of memory, a
// loopback round trip, the pacer's own precise sleep) whose figures move
// only when the host does: another process taking the client's core, its
// memory bandwidth or its scheduler. Taken before and after each run and
// stored with it, it lets a comparison tell a slower server from a busier
// client host.
package canary

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/result"
)

// Sizes are the probes' amounts of work. Default takes about a fifth of
// a second on a quiet two-core machine (a second or two on a loaded
// one); the figures are per step, so they compare across sizes, but a
// canary compares best with one of the same sizes.
type Sizes struct {
	CPUSteps   int // steps of the integer loop per repeat
	CPURepeats int
	MemMB      int // megabytes walked
	MemReads   int // dependent reads per repeat
	MemRepeats int
	RoundTrips int // loopback round trips
	Wakes      int // precise sleeps
	WakeAfter  time.Duration
}

// Default is the canary every run takes.
var Default = Sizes{
	CPUSteps: 500_000, CPURepeats: 9,
	MemMB: 16, MemReads: 100_000, MemRepeats: 3,
	RoundTrips: 1000,
	Wakes:      200, WakeAfter: 200 * time.Microsecond,
}

// Take runs the probes once. A probe that cannot run leaves its figures
// nil and says why in Problems; the error is the context's alone.
func Take(ctx context.Context, s Sizes) (result.Canary, error) {
	c := result.Canary{At: time.Now().UTC()}
	start := time.Now()
	probes := []func(context.Context, Sizes, *result.Canary) error{cpu, memory, loopback, wake}
	for _, p := range probes {
		if err := ctx.Err(); err != nil {
			return c, err
		}
		if err := p(ctx, s, &c); err != nil {
			if ctx.Err() != nil {
				return c, ctx.Err()
			}
			c.Problems = append(c.Problems, err.Error())
		}
	}
	c.Seconds = time.Since(start).Seconds()
	return c, nil
}

// spin runs n steps of xorshift64: integer work with no memory traffic.
func spin(n int) {
	x := uint64(88172645463325252)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	runtime.KeepAlive(x) // so the compiler keeps the loop
}

func cpu(ctx context.Context, s Sizes, c *result.Canary) error {
	if s.CPUSteps <= 0 || s.CPURepeats <= 0 {
		return nil
	}
	per := make([]float64, 0, s.CPURepeats)
	for range s.CPURepeats {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := time.Now()
		spin(s.CPUSteps)
		per = append(per, float64(time.Since(t).Nanoseconds())/float64(s.CPUSteps))
	}
	c.CPUNs, c.CPUWorstNs = result.F(quantile(per, 0.5)), result.F(slices.Max(per))
	return nil
}

func memory(ctx context.Context, s Sizes, c *result.Canary) error {
	if s.MemMB <= 0 || s.MemReads <= 0 || s.MemRepeats <= 0 {
		return nil
	}
	next := cycle(s.MemMB << 20 / 4)
	per := make([]float64, 0, s.MemRepeats)
	i := uint32(0)
	for range s.MemRepeats {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := time.Now()
		for range s.MemReads {
			i = next[i]
		}
		per = append(per, float64(time.Since(t).Nanoseconds())/float64(s.MemReads))
	}
	runtime.KeepAlive(i)
	c.MemNs, c.MemMB = result.F(quantile(per, 0.5)), s.MemMB
	return nil
}

// cycle is one random cycle through n slots (Sattolo's algorithm, a fixed
// seed): following it reads memory in an order no prefetcher guesses.
func cycle(n int) []uint32 {
	next := make([]uint32, n)
	for i := range next {
		next[i] = uint32(i)
	}
	x := uint64(0x9E3779B97F4A7C15)
	for i := n - 1; i > 0; i-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := int(x % uint64(i))
		next[i], next[j] = next[j], next[i]
	}
	return next
}

func loopback(ctx context.Context, s Sizes, c *result.Canary) error {
	if s.RoundTrips <= 0 {
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer func() { _ = ln.Close() }()
	served := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer func() { _ = conn.Close() }()
		_, err = io.Copy(conn, conn)
		served <- err
	}()
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	msg, back := make([]byte, 64), make([]byte, 64)
	rtt := make([]float64, 0, s.RoundTrips)
	for range s.RoundTrips {
		t := time.Now()
		if _, err := conn.Write(msg); err != nil {
			_ = conn.Close()
			return fmt.Errorf("loopback: %w", err)
		}
		if _, err := io.ReadFull(conn, back); err != nil {
			_ = conn.Close()
			return fmt.Errorf("loopback: %w", err)
		}
		rtt = append(rtt, float64(time.Since(t).Nanoseconds())/1e3)
	}
	if err := conn.Close(); err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("loopback echo: %w", err)
	}
	c.LoopbackP50Us, c.LoopbackP99Us = result.F(quantile(rtt, 0.5)), result.F(quantile(rtt, 0.99))
	return nil
}

func wake(ctx context.Context, s Sizes, c *result.Canary) error {
	if s.Wakes <= 0 || s.WakeAfter <= 0 {
		return nil
	}
	late := make([]float64, 0, s.Wakes)
	for range s.Wakes {
		if err := ctx.Err(); err != nil {
			return err
		}
		at := time.Now().Add(s.WakeAfter)
		engine.SleepUntil(at)
		late = append(late, float64(time.Since(at).Nanoseconds())/1e3)
	}
	c.WakeP50Us, c.WakeP99Us = result.F(quantile(late, 0.5)), result.F(quantile(late, 0.99))
	return nil
}

// quantile is the nearest-rank quantile q of v (sorted in place).
func quantile(v []float64, q float64) float64 {
	slices.Sort(v)
	i := int(q*float64(len(v))+0.999999) - 1
	return v[min(max(i, 0), len(v)-1)]
}
