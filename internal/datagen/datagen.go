package datagen

import "math/rand/v2"

// Payload returns n pseudo-random bytes from seed. Workloads generate it
// once and slice it for every document, so no document costs an
// allocation or a random draw per byte. The bytes are incompressible, so
// stored sizes are not flattered by block compression.
func Payload(n int, seed uint64) []byte {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(seedBytes(seed)).Read(b) // never fails
	return b
}

func seedBytes(seed uint64) [32]byte {
	var s [32]byte
	for i := range 8 {
		s[i] = byte(seed >> (8 * i))
	}
	return s
}

// Rand returns the random source of one worker: distinct per worker,
// repeatable per seed.
func Rand(seed int64, worker int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(worker)+1))
}

// A KeyChooser picks the next key of an operation.
type KeyChooser interface {
	Next(r *rand.Rand) int64
}

// Uniform chooses every key in [0, N) with equal probability.
type Uniform struct{ N int64 }

var _ KeyChooser = Uniform{}

// Next returns a key in [0, N).
func (u Uniform) Next(r *rand.Rand) int64 { return r.Int64N(u.N) }
