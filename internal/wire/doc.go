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
// Connection strings it cannot honour (SRV, load-balanced mode, other
// authentication mechanisms, client certificates, compression, a read
// preference other than primary) are refused by Parse with an error
// wrapping ErrUnsupported; callers then use the driver.
package wire
