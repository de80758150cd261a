// Package wire is a lean MongoDB client for the benchmark's hot path: one
// connection per worker, OP_MSG commands appended into a reused buffer and
// replies read into another, so an operation allocates nothing it can
// avoid. It does the connection handshake (hello with client metadata),
// SCRAM-SHA-256 and SCRAM-SHA-1 authentication, finds the primary of a
// replica set from its seeds (or uses a standalone or a mongos), sends
// implicit-session ids and retryable-write transaction numbers as the
// official driver does, retries once after a network error, and turns
// server errors (ok:0, writeErrors, writeConcernError) into *Error.
//
// Every operation has a deadline: the connection string's timeoutMS, else
// its socketTimeoutMS, else DefaultOpTimeout (30 s), bounding the send,
// the reply, a reconnect and the one retry together; an operation past it
// fails with a *NetworkError whose Timeout is true. After a failed dial
// the next one waits a jittered exponential backoff (Backoff), so a
// server that is down costs a few dials a second, not thousands.
//
// Connection strings it cannot honour (SRV, load-balanced mode, other
// authentication mechanisms, client certificates, compression, a read
// preference other than primary, w=0) are refused by Parse with an error
// wrapping ErrUnsupported; callers then use the driver.
package wire
