// Package runner runs one scenario end to end against a MongoDB target:
// connect and fingerprint the server, claim the data database, set up the
// workload, sample telemetry, drive the engine, and assemble the result
// document. It stores nothing itself; the caller decides where results go.
package runner
